// zod schemas for every file of the run package (SPEC §1) and the records we write (SPEC §4).
import { z } from 'zod';
import { plainName } from '../../../package/names';

export const itemSchema = z
  .object({
    item_id: plainName,
    benchmark: plainName,
    video_id: plainName,
    question: z.string(),
    options: z.array(z.string()).min(2).max(26),
    answer: z.string().regex(/^[A-Z]$/, 'must be one letter A..Z'),
  })
  .passthrough();
export type Item = z.infer<typeof itemSchema>;

export const manifestRowSchema = z
  .object({
    benchmark: plainName,
    video_id: plainName,
    hash: plainName,
  })
  .passthrough();
export type ManifestRow = z.infer<typeof manifestRowSchema>;

/**
 * An array of finite numbers, checked in one loop: z.array(z.number().finite()) validates and copies
 * element by element, which costs ~1.5 s for the ~20M timestamps of a full package (bench/plan.ts).
 */
const finiteNumberArray = z.unknown().superRefine((v, ctx) => {
  if (!Array.isArray(v)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be an array of numbers', fatal: true });
    return;
  }
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `must be finite numbers (index ${i} is ${typeof x === 'number' ? String(x) : JSON.stringify(x)})`,
        fatal: true,
      });
      return;
    }
  }
}) as unknown as z.ZodType<number[], z.ZodTypeDef, unknown>;

export const videoMetaSchema = z
  .object({
    hash: plainName,
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    duration_s: z.number().nonnegative(),
    n_frames: z.number().int().positive(),
    timestamps: finiteNumberArray,
    too_short: z.boolean(),
  })
  .passthrough()
  .superRefine((m, ctx) => {
    if (m.timestamps.length !== m.n_frames) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `timestamps has ${m.timestamps.length} entries but n_frames is ${m.n_frames}` });
    }
    for (let i = 1; i < m.timestamps.length; i++) {
      if (!(m.timestamps[i] > m.timestamps[i - 1])) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `timestamps must be strictly ascending (index ${i})` });
        break;
      }
    }
  });
export type VideoMeta = z.infer<typeof videoMetaSchema>;

export const scopeSummarySchema = z
  .object({
    benchmarks: z.array(plainName),
    existing_by_condition: z.record(z.string(), z.record(z.string(), z.number().int().nonnegative())),
  })
  .passthrough();
export type ScopeSummary = z.infer<typeof scopeSummarySchema>;

export const videosManifestSchema = z
  .object({
    n_videos: z.number().int().nonnegative(),
    shards: z.array(
      z
        .object({
          file: plainName,
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
          bytes: z.number().int().nonnegative(),
        })
        .passthrough(),
    ),
  })
  .passthrough();
export type VideosManifest = z.infer<typeof videosManifestSchema>;

export const FAILURE_KINDS = ['no_video', 'bad_meta', 'decode', 'request', 'server_down', 'context'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export const ROW_STATUSES = ['ok', 'NA', 'reuse'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/** Header of a new results CSV (SPEC §4). An existing CSV keeps its own header. */
export const CSV_HEADER = ['benchmark', 'item_id', 'condition', 'status', 'pred', 'answer', 'correct', 'n_frames', 'prompt_tokens', 'latency_s', 'ts'] as const;

export const rawMetaSchema = z.object({
  n_frames_used: z.number().int().nullable(),
  frame_indices: z.array(z.number().int()).nullable(),
  timestamps: z.array(z.number()).nullable(),
  short_side: z.number().int().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  tokens_per_frame: z.number().int().nullable(),
  capped: z.boolean().nullable(),
  capped_ctx: z.boolean().nullable(),
  n_grid: z.number().int().nullable(),
  n_max: z.number().int().nullable(),
  reused_from: z.string().nullable(),
  /**
   * Not in SPEC §4's list (an added key, so readers of the SPEC's keys are unaffected): the prompt
   * tokens the engine predicted for the request (protocol/qwenTokens), kept beside usage.prompt_tokens so
   * the pilot report can measure the prediction's error. Null where no request was sent; absent in
   * records written before it existed.
   */
  predicted_prompt_tokens: z.number().int().nullable().optional(),
});

/** One line of results/p1_raw/<cond>/<bench>__DIAG_V.jsonl; every key present, null where n/a. */
export const rawRecordSchema = z.object({
  benchmark: z.string(),
  item_id: z.string(),
  condition: z.string(),
  status: z.enum(ROW_STATUSES),
  response: z.string().nullable(),
  pred: z.string().nullable(),
  answer: z.string(),
  correct: z.union([z.literal(0), z.literal(1)]).nullable(),
  usage: z.object({ prompt_tokens: z.number().int().nullable(), completion_tokens: z.number().int().nullable() }),
  latency_s: z.number().nullable(),
  endpoint: z.string().nullable(),
  ts: z.string(),
  meta: rawMetaSchema,
});
export type RawRecord = z.infer<typeof rawRecordSchema>;

/** What a failures.jsonl line should be, for problem messages. */
export const FAILURE_LINE = 'a failure line {benchmark, item_id, condition, kind, message, endpoint, attempts, ts}';

export const failureRecordSchema = z.object({
  benchmark: z.string(),
  item_id: z.string(),
  condition: z.string(),
  kind: z.enum(FAILURE_KINDS),
  message: z.string(),
  endpoint: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  ts: z.string(),
});
export type FailureRecord = z.infer<typeof failureRecordSchema>;

export const timingRecordSchema = z
  .object({
    benchmark: z.string(),
    condition: z.string(),
    infer: z.number().int().nonnegative(),
    infer_s: z.number().nonnegative(),
    decode_s: z.number().nonnegative(),
    prompt_tokens: z.number().int().nonnegative(),
    na: z.number().int().nonnegative(),
    reuse: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    wall_s: z.number().nonnegative(),
  })
  .passthrough();
export type TimingRecord = z.infer<typeof timingRecordSchema>;
