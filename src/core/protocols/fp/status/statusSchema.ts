// Frames × Pixels' worker status file (`.fpsweep/status.json`): written atomically by the worker about once a
// second, read by `fpsweep status`, `fpsweep stop` and the extension. Counts come from the artifacts
// (CSV, raw JSONL, failures log) plus what is in flight; the file only adds live figures.
import { z } from 'zod';
import { BOTTLENECK_KINDS } from '../../../runner/bottleneck';
import { serverStatusSchema } from '../../../runner/serverStatus';
import { stopReasonSchema } from '../../../runner/stopReason';
import { hostCpuStatusSchema } from '../../../runner/hostCpuStatus';

export const cellProgressSchema = z.object({
  benchmark: z.string(),
  condition: z.string(),
  total: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  todo: z.number().int().nonnegative(),
  na: z.number().int().nonnegative(),
  reuse: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  noVideo: z.number().int().nonnegative(),
  /**
   * Of `todo`: units whose last attempt, in an earlier run, failed (failures.jsonl), not yet asked again.
   * The dry run's `failed_before`; views count them as failed until this run resolves them.
   */
  failedBefore: z.number().int().nonnegative().default(0),
  /** Predicted prompt tokens of the cell's requests left: the ETA's measure (absent in older status files). */
  remainingTokens: z.number().nonnegative().optional(),
});
export type CellProgress = z.infer<typeof cellProgressSchema>;

export const WORKER_STATES = ['starting', 'launching', 'running', 'draining', 'done', 'failed', 'stopped'] as const;
export type WorkerState = (typeof WORKER_STATES)[number];

export const workerStatusSchema = z.object({
  version: z.literal(1),
  pid: z.number().int(),
  runId: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  state: z.enum(WORKER_STATES),
  mode: z.enum(['pilot', 'full', 'custom']),
  /** `--shard K/N` of this run (its counts are the shard's own), null for the whole package. */
  shard: z.string().nullable().optional(),
  benchmarks: z.array(z.string()),
  conditions: z.array(z.string()),
  message: z.string().nullable(),
  totals: z.object({
    total: z.number().int().nonnegative(),
    done: z.number().int().nonnegative(),
    todo: z.number().int().nonnegative(),
    inFlight: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    /** Of `todo`: units that failed in an earlier run and are not yet asked again (cells' failedBefore). */
    failedBefore: z.number().int().nonnegative().default(0),
    addedThisRun: z.number().int().nonnegative(),
  }),
  cells: z.array(cellProgressSchema),
  throughput: z.object({ requestsPerMin: z.number().nonnegative(), framesPerSec: z.number().nonnegative() }),
  etaSeconds: z.number().nonnegative().nullable(),
  servers: z.array(serverStatusSchema),
  /** The run's last line, in numbers, once it has ended. */
  summary: z.string().nullable(),
  /** Why the run stopped on its own judgement; absent or null otherwise. */
  stopReason: stopReasonSchema.nullish(),
  /** The run's bottleneck: the kind most servers have, and its line as `status` prints it; absent before any verdict. */
  bottleneck: z
    .object({
      kind: z.enum(BOTTLENECK_KINDS),
      line: z.string(),
      /** The host's cores bound the run (its line then says so first, with the measured share); absent in older files. */
      hostCpuBound: z.boolean().optional(),
    })
    .nullish(),
  /** The host's CPU over the requests so far (runner/hostCpuSampler.ts); absent before the first window and in older files. */
  hostCpu: hostCpuStatusSchema.nullish(),
});
export type WorkerStatus = z.infer<typeof workerStatusSchema>;
