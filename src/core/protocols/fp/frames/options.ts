// Settings of the frame pipeline. They change speed and memory, never which frames or which bytes.
import * as os from 'node:os';
import { z } from 'zod';
import { defaultRawTransport } from './rawTransport';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/**
 * Videos decoded at once: cores − 1 (one core left for the runner, sharp's threads and the servers' clients),
 * at least 1, and on more than 5 cores at most max(4, ⌈cores / 4⌉). Why the cap: on a 16-core host
 * (bench/device/results/SUMMARY.md, natural package at scale 2, 94,104 frames, 14,488 JPEGs) the pipeline
 * is bound by the JPEGs (sharp), not the decode: its wall clock was 21.3-23.9 s at pool 2, 23.9-25.7 s at
 * pool 4, 21.7-25.7 s at pool 8, but 27.0-30.1 s at pool 15 (cores − 1), 28.6 s at 12 and 27.1 s at 16,
 * while ffmpeg alone (-f null) reached its best (~10 s) from pool 4 up. 4 sits in the flat part and holds
 * a quarter of pool 15's raw frames. Up to 5 cores (2 measured most) the default is unchanged.
 */
export function defaultPoolSize(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(cores - 1, Math.max(4, Math.ceil(cores / 4))));
}

/**
 * ffmpeg's decoder threads per video. One decode alone gets ffmpeg's own choice (0: frame threads over all
 * cores). Several decodes share the cores instead: ffmpeg's choice in each of them would start about
 * cores + 1 threads per video (cores − 1 videos × ~cores threads on a many-core host), most of them waiting.
 * On 16 cores, pool 4 with 4 threads each (this rule) and pool 2 with 8 were as fast as any measured
 * (23.9 s each, run 3); pool 15 with 1 thread: 27.0 / 30.1 s, with 2 threads: 25.0 s.
 */
export function defaultFfmpegThreads(poolSize: number, cores = os.availableParallelism()): number {
  return poolSize <= 1 ? 0 : Math.max(1, Math.floor(cores / poolSize));
}

/** Raw-frame budget: 128 MiB, or 24 MiB per decode (eight 720p frames) when the pool is larger than 5. */
export function defaultMaxBufferedBytes(poolSize: number): number {
  return Math.max(128 * MiB, poolSize * 24 * MiB);
}

export const framePipelineOptionsSchema = z
  .object({
    /** The JPEG store (PackageLayout.frameStoreDir for a run package). */
    storeDir: z.string().min(1),
    /**
     * The containment root the store is checked from (PackageLayout.root for a run package): nothing on the store's
     * path below it may be a link (issue 42). Default: the store's parent folder.
     */
    root: z.string().min(1).optional(),
    /** Videos decoded at the same time (one ffmpeg each). */
    poolSize: z.number().int().min(1).default(defaultPoolSize),
    /** Videos prepare-ahead() keeps in preparation or ready before the consumer takes them; default 2 × poolSize. */
    prefetchDepth: z.number().int().min(1).optional(),
    /** Raw decoded frames held in memory at once, over all decodes (720p RGB is 2.76 MB a frame); default defaultMaxBufferedBytes. */
    maxBufferedBytes: z.number().int().min(1).optional(),
    /** Store size above which unpinned JPEGs are evicted, least recently used first. */
    storeCapBytes: z
      .number()
      .int()
      .min(0)
      .default(20 * GiB),
    ffmpegPath: z
      .string()
      .min(1)
      .default(() => process.env.FFMPEG_BIN ?? 'ffmpeg'),
    ffprobePath: z
      .string()
      .min(1)
      .default(() => process.env.FFPROBE_BIN ?? 'ffprobe'),
    /** ffmpeg's decoder threads per video; 0 = ffmpeg's own choice; default defaultFfmpegThreads. */
    ffmpegThreads: z.number().int().min(0).optional(),
    /** How raw frames reach node: a Unix socket read in place (default where available) or a pipe (rawTransport.ts). */
    rawTransport: z.enum(['socket', 'pipe']).default(defaultRawTransport),
  })
  .strict();

export type FramePipelineOptions = z.input<typeof framePipelineOptionsSchema>;
export type FramePipelineSettings = z.output<typeof framePipelineOptionsSchema> & { prefetchDepth: number; maxBufferedBytes: number; ffmpegThreads: number };

export function resolveOptions(opts: FramePipelineOptions): FramePipelineSettings {
  const s = framePipelineOptionsSchema.parse(opts);
  return {
    ...s,
    prefetchDepth: s.prefetchDepth ?? 2 * s.poolSize,
    maxBufferedBytes: s.maxBufferedBytes ?? defaultMaxBufferedBytes(s.poolSize),
    ffmpegThreads: s.ffmpegThreads ?? defaultFfmpegThreads(s.poolSize),
  };
}
