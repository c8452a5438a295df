// The cut sample's source videos (issue 27 point 7; `fpsweep avtime cut-sample` is wired to it): a flat folder of
// complete videos made with ffmpeg from lavfi sources, bit-exact (the engine's encodeLavfiAv), so the same bytes on
// every machine. Each file is encoded under a temporary name and renamed: a file of the list is always complete.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeLavfiAv } from '../../../media/ffmpeg';
import { mapBounded } from '../../../runner/mapBounded';
import { CUT_SAMPLE_AUDIO_RATE, CUT_SAMPLE_FPS, CUT_SAMPLE_HEIGHT, CUT_SAMPLE_WIDTH, cutSampleLavfi, planCutSample, type CutSampleVideo } from './plan';

async function makeVideo(v: CutSampleVideo, dir: string): Promise<string> {
  const file = path.join(dir, v.file);
  const part = path.join(dir, `.${v.file}.part.mp4`);
  const spec = { width: CUT_SAMPLE_WIDTH, height: CUT_SAMPLE_HEIGHT, fps: CUT_SAMPLE_FPS, audioRate: CUT_SAMPLE_AUDIO_RATE };
  try {
    await encodeLavfiAv({ ...spec, duration: v.durationS.toFixed(3), ...cutSampleLavfi(v) }, part, `encode cut sample video ${v.file}`);
    await fs.rename(part, file);
  } catch (err) {
    await fs.rm(part, { force: true });
    throw err;
  }
  return file;
}

/** Makes the sample's source videos directly in `outDir` (created; files of the same names are replaced). Their paths, in plan order. */
export async function makeCutSample(outDir: string, opts: { concurrency?: number } = {}): Promise<string[]> {
  const dir = path.resolve(outDir);
  await fs.mkdir(dir, { recursive: true });
  const limit = Math.max(1, Math.min(opts.concurrency ?? 2, os.availableParallelism()));
  return mapBounded(planCutSample(), limit, (v) => makeVideo(v, dir));
}
