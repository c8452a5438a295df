// logs/preflight.json, defined once (zod only: the report's webviews bundle it for the browser).
import { z } from 'zod';

export const preflightUnitSchema = z.object({
  benchmark: z.string(),
  item_id: z.string(),
  condition: z.string(),
  n_frames: z.number().int().nonnegative(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  /** How the frames travel, as the sweep sends them. */
  frames_as: z.enum(['file', 'data', 'none']),
  predicted_prompt_tokens: z.number().nullable(),
});
export type PreflightUnit = z.infer<typeof preflightUnitSchema>;

export const preflightServerSchema = z.object({
  endpoint: z.string(),
  ok: z.boolean(),
  http_status: z.number().int().nullable(),
  prompt_tokens: z.number().int().nullable(),
  completion_tokens: z.number().int().nullable(),
  finish_reason: z.string().nullable(),
  latency_s: z.number().nullable(),
  /** What was wrong (the server's words for a refusal); null when ok. */
  problem: z.string().nullable(),
  meaning: z.string().nullable(),
  action: z.string().nullable(),
});
export type PreflightServer = z.infer<typeof preflightServerSchema>;

/** logs/preflight.json: the last run's pre-flight. */
export const preflightRecordSchema = z.object({
  run_id: z.string(),
  ts: z.string(),
  ok: z.boolean(),
  unit: preflightUnitSchema.nullable(),
  /** Set when no probe could be built (no frames could be made for any tried video). */
  problem: z.string().nullable(),
  servers: z.array(preflightServerSchema),
});
export type PreflightRecord = z.infer<typeof preflightRecordSchema>;
