// One row of raw_predictions.jsonl: the target's answer to one query, as the target row (targetRow.ts) makes it and
// inference (infer.ts) writes it; normalization reads it back.
import { z } from 'zod';

export const rawPredictionSchema = z.object({
  id: z.string(),
  video_id: z.string(),
  response: z.string(),
  finish_reason: z.string().nullable(),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
  latency_s: z.number(),
  endpoint: z.string(),
  ts: z.string(),
});
export type RawPrediction = z.infer<typeof rawPredictionSchema>;
