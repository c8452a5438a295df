// What an AVTime-Bench run is asked to do (SPEC-AVTIME §9), validated once at the boundary (CLI flags,
// the detached worker's --avtime JSON). Defaults are the seed's canonical topology; every option that
// differs from its default is recorded in run_config.json as non-default.
import * as path from 'node:path';
import { z } from 'zod';

export const STAGES = ['inputs', 'infer', 'normalize', 'judge', 'score'] as const;
export type StageName = (typeof STAGES)[number];
export const AVTIME_VERBS = [...STAGES, 'run'] as const;
export type AvtimeVerb = (typeof AVTIME_VERBS)[number];

const gpuGroups = z.array(z.array(z.number().int().nonnegative()).min(1)).min(1);

export const avtimeOptionsSchema = z.object({
  benchRoot: z.string().min(1),
  /** The run's output root; default outputs/avtime-bench/<runId> under the current folder. */
  outputRoot: z.string().optional(),
  runId: z.string().optional(),
  /** Where target_inputs.jsonl is read (and written when absent); default <bench root>/target_inputs.jsonl. */
  targetInputs: z.string().optional(),
  targetModel: z.string().optional(),
  /** The id recorded for the target (TARGET_MODEL_ID); default the model path's last segment. */
  targetModelId: z.string().optional(),
  targetRevision: z.string().optional(),
  judgeModel: z.string().optional(),
  judgeModelId: z.string().optional(),
  judgeRevision: z.string().optional(),
  targetGpus: gpuGroups.default([
    [0, 1, 2, 3],
    [4, 5, 6, 7],
  ]),
  targetTp: z.number().int().positive().default(4),
  judgeGpus: gpuGroups.default([[0, 1, 2, 3, 4, 5, 6, 7]]),
  judgeTp: z.number().int().positive().default(8),
  targetEndpoints: z.array(z.string()).optional(),
  judgeEndpoint: z.string().optional(),
  vllmBin: z.string().optional(),
  /** The target's and the judge's own vLLM executables (each held to its pin, vllmPins.ts); default vllmBin (VLLM_BIN). */
  targetVllmBin: z.string().optional(),
  judgeVllmBin: z.string().optional(),
  /** --judge-thinking: the judge thinks (chat_template_kwargs.enable_thinking true); non-thinking by default (§6). */
  judgeThinking: z.boolean().default(false),
  audioInVideo: z.boolean().default(true),
  /** --resume: back into an existing run; with --keep-going the target shards are non-canonical. */
  resume: z.boolean().default(false),
  keepGoing: z.boolean().default(false),
  /** Requests in flight per target server (the seed's batch size per replica). */
  targetBatch: z.number().int().positive().default(512),
  /** Requests in flight to the judge: pass 1, retry pass (the seed's 32 and 16). */
  judgeBatch: z.number().int().positive().default(32),
  judgeRetryBatch: z.number().int().positive().default(16),
  /** The first port of the launched target servers (shard k listens on base + k), and the judge's. */
  targetBasePort: z.number().int().min(1024).max(65535).default(8011),
  judgeBasePort: z.number().int().min(1024).max(65535).default(8031),
  /**
   * Given endpoints only (runner/unreachableRule.ts; 0 = off): every server of a stage unreachable (refused, reset,
   * /health down) this many seconds stops the run, its requests left to do (--keep-going's target rows, the judge's).
   */
  failDownS: z.number().int().min(0).default(120),
});
export type AvtimeOptions = z.infer<typeof avtimeOptionsSchema>;
export type AvtimeOptionsInput = z.input<typeof avtimeOptionsSchema>;

/** "0,1,2,3;4,5,6,7" → [[0,1,2,3],[4,5,6,7]]. */
export { parseGpuGroups } from '../../../serving/gpus';

/** The default run id: the two models' last path segments and the UTC date, e.g. avtime-model__Qwen3.6-27B__20261203. */
export function defaultRunId(targetId: string, judgeId: string, now = new Date()): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';
  return `${clean(targetId)}__${clean(judgeId)}__${now.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

export function modelId(model: string | undefined, explicit: string | undefined, fallback: string): string {
  if (explicit) return explicit;
  if (!model) return fallback;
  return path.basename(model.replace(/\/+$/, '')) || model;
}

/** The options that differ from their defaults (for run_config.json's non-default list). */
export function nonDefaultOptions(opts: AvtimeOptions): Record<string, unknown> {
  const defaults = avtimeOptionsSchema.parse({ benchRoot: opts.benchRoot });
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (k === 'benchRoot') continue;
    if (JSON.stringify(v) !== JSON.stringify((defaults as Record<string, unknown>)[k])) out[k] = v;
  }
  return out;
}
