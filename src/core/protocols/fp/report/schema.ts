// The report's data (report.json), defined once: `fpsweep report` writes it, the VS Code webviews
// (timing, failures, checks) render exactly this and nothing they compute themselves.
import { z } from 'zod';
import { preflightRecordSchema } from '../sweep/preflightSchema';
import { stopReasonSchema } from '../../../runner/stopReason';
import { tokenPredictionSchema } from './tokenPrediction';
import { BOTTLENECK_KINDS, bottleneckSchema } from '../../../runner/bottleneck';
import { hostCpuStatusSchema } from '../../../runner/hostCpuStatus';
import { findingsSchema } from '../findings/types';

export const lineProblemSchema = z.object({ file: z.string(), line: z.number().int(), message: z.string() });

/** One condition of the seed's §4 timing table (sums over every p1_timing.jsonl line). */
export const timingRowSchema = z.object({
  condition: z.string(),
  infer: z.number().int(),
  infer_s: z.number(),
  decode_s: z.number(),
  prompt_tokens: z.number(),
  /** s / max(n, 1), as the seed's script divides. */
  infer_s_per_item: z.number(),
  decode_s_per_item: z.number(),
  prompt_tok_per_item: z.number(),
  /** The seed's printed line for this condition, character for character. */
  text: z.string(),
});

export const timingSchema = z.object({
  file: z.string(),
  present: z.boolean(),
  lines: z.number().int(),
  benchmarks: z.array(z.string()),
  rows: z.array(timingRowSchema),
  /** Sum of wall_s over the timing lines (cells overlap in time: not the run's wall time). */
  cellWallSeconds: z.number(),
});

export const extrapolationRowSchema = z.object({
  condition: z.string(),
  todo: z.number().int(),
  /** Pilot infer_s per answered item, or null when the pilot has no timing for this condition. */
  secondsPerItem: z.number().nullable(),
  /** todo × secondsPerItem (request-seconds, before dividing by servers). */
  requestSeconds: z.number().nullable(),
  /** Pilot work per answered item in the extrapolation's unit, and todo × that (null: untimed). */
  unitPerItem: z.number().nullable().default(null),
  work: z.number().nullable().default(null),
});

export const extrapolationSchema = z.object({
  available: z.boolean(),
  reason: z.string().nullable(),
  method: z.string(),
  servers: z.number().int().nullable(),
  serversSource: z.string(),
  rows: z.array(extrapolationRowSchema),
  todoTotal: z.number().int(),
  /** Conditions with todo > 0 but no pilot timing (left out of the estimate). */
  untimedConditions: z.array(z.string()),
  /** Σ requestSeconds / servers: one request at a time per server (an upper bound). */
  serialSeconds: z.number().nullable(),
  /** Requests in flight per server during the pilot: Σ pilot infer_s / (pilot wall × servers). */
  pilotConcurrency: z.number().nullable(),
  /** The bottleneck the estimate scales on (extrapolate.ts), and the unit of its work. */
  bottleneck: z.enum(BOTTLENECK_KINDS).default('unknown'),
  unit: z.string().default('request-seconds'),
  /** Σ todo × unitPerItem. */
  workTotal: z.number().nullable().default(null),
  /** Seconds per unit of work on one server, measured on the bottleneck (null: the request-seconds method). */
  secondsPerUnit: z.number().nullable().default(null),
  /** The full-run estimate (method says how). */
  estimatedSeconds: z.number().nullable(),
});

/** The last run's bottleneck verdicts (from .fpsweep/status.json), per server and for the run. */
export const reportBottleneckSchema = z.object({
  runId: z.string(),
  kind: z.enum(BOTTLENECK_KINDS),
  line: z.string(),
  servers: z.array(bottleneckSchema.extend({ index: z.number().int(), endpoint: z.string() })),
  /** The host's CPU over that run's requests (runner/hostCpuSampler.ts); null in status files without it. */
  hostCpu: hostCpuStatusSchema.nullable().default(null),
  /** The same in words (runner/hostCpuRecord.ts hostCpuText), for report.md and the webview. */
  hostCpuLine: z.string().nullable().default(null),
  /** Where that run made its frames, what --frames-on chose and why (.fpsweep/frames_paths.jsonl); null without a line. */
  framesLine: z.string().nullable().default(null),
});

export const runSpanSchema = z.object({
  run_id: z.string(),
  started_at: z.string(),
  last_write_at: z.string().nullable(),
  seconds: z.number().nullable(),
});

export const wallTimeSchema = z.object({
  seconds: z.number().nullable(),
  method: z.string(),
  runs: z.array(runSpanSchema),
});

export const rowsAddedRowSchema = z.object({
  condition: z.string(),
  ok: z.number().int(),
  NA: z.number().int(),
  reuse: z.number().int(),
  total: z.number().int(),
  /** Raw records in the same window: equal to total when every row has its raw record. */
  rawRecords: z.number().int(),
});

export const rowsAddedSchema = z.object({
  method: z.string(),
  windowStart: z.string().nullable(),
  rows: z.array(rowsAddedRowSchema),
  total: z.number().int(),
  /** Conditions whose row count differs from their raw record count. */
  mismatches: z.array(z.string()),
});

export const failureGroupSchema = z.object({
  benchmark: z.string(),
  condition: z.string(),
  kind: z.string(),
  count: z.number().int(),
  exampleItemIds: z.array(z.string()),
  exampleMessage: z.string(),
});

export const logLineSchema = z.object({ file: z.string(), line: z.number().int(), text: z.string() });

export const diagnosisSchema = z.object({
  benchmark: z.string(),
  condition: z.string(),
  failures: z.number().int(),
  message: z.string(),
  logLines: z.array(logLineSchema),
});

export const failuresSchema = z.object({
  file: z.string(),
  present: z.boolean(),
  total: z.number().int(),
  byKind: z.record(z.string(), z.number().int()),
  groups: z.array(failureGroupSchema),
  /** Threshold above which a benchmark × condition is diagnosed (seed §5: "hundreds"). */
  diagnosisThreshold: z.number().int(),
  diagnoses: z.array(diagnosisSchema),
  /** Lines of logs/vllm_gpu*.log that look like OOM or a server death, whatever the failures. */
  serverLogLines: z.array(logLineSchema),
});

export const launchSchema = z.object({
  file: z.string(),
  present: z.boolean(),
  /** The distinct launch lines, exactly as written (one per server). */
  lines: z.array(z.string()),
  servers: z.number().int(),
  /** Launches recorded in total (starts and restarts). */
  launches: z.number().int(),
});

export const checkExampleSchema = z.object({
  benchmark: z.string(),
  condition: z.string(),
  item_id: z.string(),
  detail: z.string(),
});

export const checkSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['pass', 'fail', 'skip']),
  detail: z.string(),
  checked: z.number().int(),
  violations: z.number().int(),
  examples: z.array(checkExampleSchema),
});

export const reportSchema = z.object({
  version: z.literal(1),
  generatedAt: z.string(),
  packageDir: z.string(),
  timing: timingSchema,
  extrapolation: extrapolationSchema,
  /** What bounded the last run's servers; null without a verdict (no status, too few requests). */
  bottleneck: reportBottleneckSchema.nullable().default(null),
  wallTime: wallTimeSchema,
  rowsAdded: rowsAddedSchema,
  failures: failuresSchema,
  /** The last run's pre-flight (logs/preflight.json), null before any. */
  preflight: preflightRecordSchema.nullable().default(null),
  /** How the last run ended, from .fpsweep/status.json: its reason when it stopped on its own. */
  lastRun: z.object({ runId: z.string(), state: z.string(), summary: z.string().nullable(), stopReason: stopReasonSchema.nullable() }).nullable().default(null),
  launch: launchSchema,
  checks: z.array(checkSchema),
  tokenPrediction: tokenPredictionSchema,
  rawRecords: z.object({ files: z.number().int(), records: z.number().int() }),
  /** The findings (findings/types.ts), null when they could not be computed (see problems). */
  findings: findingsSchema.nullable().default(null),
  problems: z.array(lineProblemSchema),
  problemCount: z.number().int(),
});

export type Report = z.infer<typeof reportSchema>;
export type TimingRow = z.infer<typeof timingRowSchema>;
export type Check = z.infer<typeof checkSchema>;
export type FailureGroup = z.infer<typeof failureGroupSchema>;
export type LogLine = z.infer<typeof logLineSchema>;
