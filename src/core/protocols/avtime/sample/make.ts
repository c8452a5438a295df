// `fpsweep avtime sample --out DIR`: a small complete AVTime bench root (SPEC-AVTIME §1) made with
// ffmpeg. Written into a staging folder inside DIR and moved up at the end, so a failure leaves DIR
// as it was. Same bytes every run, except the absolute paths in inventory.jsonl.
import { mapBounded } from '../../../runner/mapBounded';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../errors';
import { encodeAvSampleVideo, probeAv } from './encode';
import { planAvtimeSample, planQueries, referenceEvents, type SampleAvVideo } from './plan';
import { PACKAGED_SYSTEM_PROMPT, PACKAGED_TARGET_PROMPT } from '../prompts';
import { SAMPLE_README } from './prompt';

export interface AvtimeSampleSummary {
  root: string;
  videos: number;
  queries: Record<string, number>;
  totalMs: number;
  seconds: number;
}

const STAGING = '.avtime-sample-staging';

async function assertEmptyDir(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new InputError(`${dir} is a file, not a folder`);
    throw err;
  }
  if (entries.length > 0) throw new InputError(`${dir} is not empty; choose a new folder for the sample bench`);
}

const jsonl = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r) + '\n').join('');

/** Percent bucket of a millisecond time (the reference answer's LongVALE lines). */
function pct(ms: number, durationMs: number): number {
  return Math.min(99, Math.floor((ms * 100) / durationMs));
}

export function referenceAnswer(v: SampleAvVideo, durationMs: number): string {
  return referenceEvents(v)
    .map((e) => {
      const a = pct(e.startMs, durationMs);
      const b = Math.max(a, Math.min(99, Math.ceil((e.endMs * 100) / durationMs) - 1));
      return `From ${String(a).padStart(2, '0')} to ${String(b).padStart(2, '0')}, ${e.caption}`;
    })
    .join('\n');
}

export async function makeAvtimeSample(opts: { out: string; concurrency?: number }): Promise<AvtimeSampleSummary> {
  const t0 = performance.now();
  const root = path.resolve(opts.out);
  await assertEmptyDir(root);
  const staging = path.join(root, STAGING);
  await fs.mkdir(path.join(staging, 'videos'), { recursive: true });
  await fs.mkdir(path.join(staging, 'prompts'), { recursive: true });
  try {
    const videos = planAvtimeSample();
    const limit = Math.max(1, Math.min(opts.concurrency ?? 2, os.availableParallelism()));
    const audited = await mapBounded(videos, limit, async (v) => {
      const file = path.join(staging, 'videos', `${v.videoId}.mp4`);
      await encodeAvSampleVideo(v, file);
      const probed = await probeAv(file);
      if (!probed.hasVideo || !probed.hasAudio)
        throw new Error(`${file}: ffprobe finds ${probed.hasVideo ? '' : 'no video '}${probed.hasAudio ? '' : 'no audio '}stream`);
      return {
        durationMs: probed.durationMs,
        sha256: createHash('sha256')
          .update(await fs.readFile(file))
          .digest('hex'),
      };
    });
    const test = videos.map((v, i) => ({
      id: v.rowId,
      videos: [`videos/${v.videoId}.mp4`],
      messages: [
        { role: 'system', content: PACKAGED_SYSTEM_PROMPT },
        { role: 'user', content: '<video>' },
        { role: 'assistant', content: referenceAnswer(v, audited[i].durationMs) },
      ],
      metadata: {
        video_id: v.videoId,
        duration_ms: audited[i].durationMs,
        source: 'fpsweep avtime sample',
        n_reference_events: v.audio.length + v.visual.length,
      },
    }));
    const inventory = videos.map((v, i) => ({
      stable_id: v.stableId,
      video_id: v.videoId,
      duration_ms: audited[i].durationMs,
      sha256: audited[i].sha256,
      resolved_media_path: path.join(root, 'videos', `${v.videoId}.mp4`),
    }));
    const queries = videos.flatMap(planQueries);
    await fs.writeFile(path.join(staging, 'test.jsonl'), jsonl(test));
    await fs.writeFile(path.join(staging, 'inventory.jsonl'), jsonl(inventory));
    await fs.writeFile(path.join(staging, 'benchmark_reference_manifest.jsonl'), jsonl(queries));
    await fs.writeFile(path.join(staging, 'prompts', 'target.txt'), PACKAGED_TARGET_PROMPT);
    await fs.writeFile(path.join(staging, 'prompts', 'system.txt'), PACKAGED_SYSTEM_PROMPT);
    await fs.writeFile(path.join(staging, 'README.md'), SAMPLE_README);
    for (const entry of await fs.readdir(staging)) await fs.rename(path.join(staging, entry), path.join(root, entry));
    await fs.rmdir(staging);
    const counts: Record<string, number> = {};
    for (const q of queries) counts[`${q.direction}-${q.axis}`] = (counts[`${q.direction}-${q.axis}`] ?? 0) + 1;
    return { root, videos: videos.length, queries: counts, totalMs: audited.reduce((s, a) => s + a.durationMs, 0), seconds: (performance.now() - t0) / 1000 };
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
}
