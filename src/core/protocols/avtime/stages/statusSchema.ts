// `<output root>/.fpsweep/avtime-status.json` (the layout's statusFile): what an AVTime run is doing, written
// about once a second by the run session's StatusReporter (tmp + rename) and read by the progress tree.
// Small on purpose: stages, shards, judge passes.
import { z } from 'zod';
import { readStatusFile } from '../../../runner/statusFile';

const count = z.number().int().nonnegative();
const stageState = z.enum(['todo', 'running', 'done', 'failed', 'skipped']);

/** A shard waiting on its server (runner/serverHealth.ts unreachableOf): the URL, since when, its words, the bound. */
export const shardWaitingSchema = z.object({ endpoint: z.string(), since: z.string(), message: z.string(), rule: z.string() });
export type ShardWaiting = z.infer<typeof shardWaitingSchema>;

export const avtimeStatusSchema = z.object({
  kind: z.literal('avtime'),
  runId: z.string(),
  outputRoot: z.string(),
  pid: z.number().int(),
  state: z.enum(['running', 'done', 'failed']),
  startedAt: z.string(),
  updatedAt: z.string(),
  canonical: z.boolean(),
  stages: z.array(z.object({ name: z.enum(['inputs', 'infer', 'normalize', 'judge', 'score']), state: stageState, done: count, todo: count, failed: count })),
  shards: z.array(
    z.object({
      shard: count,
      endpoint: z.string(),
      /** `waiting`: its server is unreachable (`waiting` says which, since when, and the bound); it goes on once it answers. */
      state: z.enum(['todo', 'running', 'waiting', 'done', 'failed', 'stopped']),
      expected: count,
      written: count,
      failed: count,
      waiting: shardWaitingSchema.nullish(),
    }),
  ),
  /** A pass `waiting`: its given judge server is unreachable (`waiting` as a shard's); it goes on once it answers. */
  judgePasses: z.array(
    z.object({
      pass: z.number().int().positive(),
      maxTokens: count,
      state: z.enum([...stageState.options, 'waiting']),
      requests: count,
      done: count,
      failed: count,
      waiting: shardWaitingSchema.nullish(),
    }),
  ),
  /** The target pre-flight (SPEC-AVTIME §3), once it has run: the placeholder counts per server. */
  preflight: z
    .object({
      ok: z.boolean(),
      servers: z.array(
        z.object({
          endpoint: z.string(),
          ok: z.boolean(),
          predicted: z.object({ video: count, audio: count }).nullable(),
          got: z.object({ video: count, audio: count }).nullable(),
          problem: z.string().nullable(),
        }),
      ),
    })
    .nullish(),
  /** The run's last line once it has ended. */
  summary: z.string().nullable(),
});
export type AvtimeStatus = z.infer<typeof avtimeStatusSchema>;
export type AvtimeStageStatus = AvtimeStatus['stages'][number];

/** The status file's last state, or null (none yet, or not an AVTime status). */
export function readAvtimeStatus(file: string): Promise<AvtimeStatus | null> {
  return readStatusFile(file, avtimeStatusSchema);
}
