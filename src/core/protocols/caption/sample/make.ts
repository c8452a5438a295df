// `fpsweep avtime caption-sample --out DIR [--fresh]`: a small videos root for segmented captioning, made with ffmpeg
// (./plan.ts says what is in it). Each complete video is encoded beside its directory (`<stem>.mp4`, the
// segments.json's input_video) and, in the same ffmpeg run, its clips (video + audio) with an mp3 sidecar each. Everything is made in
// a staging folder inside DIR and moved up at the end; caption-sample.json, written last, marks a complete sample, so a
// second run keeps it (unless --fresh) and a failed one leaves DIR as it was.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../errors';
import { encodeLavfiAv } from '../../../media/ffmpeg';
import { mapBounded } from '../../../runner/mapBounded';
import { writeFileAtomic } from '../../../runner/atomicFile';
import {
  CAPTION_SAMPLE_AUDIO_RATE,
  CAPTION_SAMPLE_FPS,
  CAPTION_SAMPLE_HEIGHT,
  CAPTION_SAMPLE_WIDTH,
  clipName,
  durationOf,
  lavfiOf,
  planCaptionSample,
  segmentsDoc,
  type SampleVideo,
} from './plan';
import { parseBoundedJson } from '../../../io/boundedJson';

export const CAPTION_SAMPLE_MARKER = 'caption-sample.json';
const STAGING = '.caption-sample-staging';

export interface CaptionSampleVideo {
  stem: string;
  state: 'valid' | 'invalid' | 'untracked';
  clips: number;
  /** The validator's rule the invalid directory breaks. */
  rule?: string;
}

export interface CaptionSampleSummary {
  root: string;
  /** true: a complete sample was already there and is kept (no --fresh). */
  kept: boolean;
  videos: CaptionSampleVideo[];
  seconds: number;
}

const stateOf = (v: SampleVideo): CaptionSampleVideo => ({
  stem: v.stem,
  state: !v.tracked ? 'untracked' : v.flaw ? 'invalid' : 'valid',
  clips: v.clips.length,
  ...(v.flaw ? { rule: v.flaw.rule } : {}),
});

async function readMarker(root: string): Promise<CaptionSampleVideo[] | null> {
  const text = await fs.readFile(path.join(root, CAPTION_SAMPLE_MARKER), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const j = parseBoundedJson(text) as { videos?: CaptionSampleVideo[] };
    return Array.isArray(j.videos) ? j.videos : null;
  } catch {
    return null;
  }
}

/** DIR may be absent, empty, or a sample made before (replaced with --fresh); anything else is refused. */
async function prepareRoot(root: string, fresh: boolean): Promise<CaptionSampleVideo[] | 'make'> {
  const entries = await fs.readdir(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    if (err.code === 'ENOTDIR') throw new InputError(`${root} is a file, not a folder`);
    throw err;
  });
  if (entries.length === 0) return 'make';
  const before = await readMarker(root);
  if (before === null) throw new InputError(`${root} is not empty and holds no caption sample (${CAPTION_SAMPLE_MARKER}); choose a new folder`);
  if (!fresh) return before;
  for (const e of entries) await fs.rm(path.join(root, e), { recursive: true, force: true });
  return 'make';
}

async function makeVideo(v: SampleVideo, staging: string, root: string): Promise<void> {
  const dir = path.join(staging, v.stem);
  await fs.mkdir(path.join(dir, 'clips'), { recursive: true });
  const cuts = v.clips.map((c) => {
    const clip = path.join(dir, 'clips', `${clipName(c.index)}.mp4`);
    return { startS: c.startS, durationS: c.endS - c.startS, clip, sidecar: clip.replace(/\.mp4$/, '.mp3') };
  });
  const spec = { width: CAPTION_SAMPLE_WIDTH, height: CAPTION_SAMPLE_HEIGHT, fps: CAPTION_SAMPLE_FPS, audioRate: CAPTION_SAMPLE_AUDIO_RATE };
  const full = path.join(staging, `${v.stem}.mp4`);
  await encodeLavfiAv({ ...spec, duration: durationOf(v).toFixed(3), ...lavfiOf(v) }, full, `encode caption sample video ${v.stem}`, cuts);
  // The complete video's final place: beside its directory in the videos root.
  if (v.tracked) await fs.writeFile(path.join(dir, 'segments.json'), JSON.stringify(segmentsDoc(v, path.join(root, `${v.stem}.mp4`)), null, 2) + '\n');
}

export async function makeCaptionSample(opts: { out: string; fresh?: boolean; concurrency?: number }): Promise<CaptionSampleSummary> {
  const t0 = performance.now();
  const root = path.resolve(opts.out);
  const prepared = await prepareRoot(root, opts.fresh === true);
  if (prepared !== 'make') return { root, kept: true, videos: prepared, seconds: (performance.now() - t0) / 1000 };
  const staging = path.join(root, STAGING);
  await fs.mkdir(staging, { recursive: true });
  const plan = planCaptionSample();
  try {
    const limit = Math.max(1, Math.min(opts.concurrency ?? 2, os.availableParallelism()));
    await mapBounded(plan, limit, (v) => makeVideo(v, staging, root));
    for (const entry of await fs.readdir(staging)) await fs.rename(path.join(staging, entry), path.join(root, entry));
    await fs.rmdir(staging);
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
  const videos = plan.map(stateOf);
  await writeFileAtomic(root, path.join(root, CAPTION_SAMPLE_MARKER), JSON.stringify({ schema: 'fpsweep_caption_sample_v1', videos }, null, 2) + '\n');
  return { root, kept: false, videos, seconds: (performance.now() - t0) / 1000 };
}
