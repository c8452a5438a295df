// logs/preflight.json of an AVTime run (SPEC-AVTIME §3), defined once (zod only: the progress reader and the
// report read it without the pre-flight's client).
import { z } from 'zod';

const counts = z.object({ video: z.number().int(), audio: z.number().int() });
export const preflightServerSchema = z.object({
  endpoint: z.string(),
  input_id: z.string(),
  video: z.string(),
  ok: z.boolean(),
  /** The reference's counts for this file (audio 0 with --no-audio-in-video). */
  predicted: counts.nullable(),
  /** Counted in the server's prompt_token_ids; null when no ids came back. */
  got: counts.nullable(),
  nframes: z.number().int().nullable(),
  model_size: z.object({ height: z.number().int(), width: z.number().int() }).nullable(),
  problem: z.string().nullable(),
});
export const preflightRecordSchema = z.object({
  ts: z.string(),
  ok: z.boolean(),
  audio_in_video: z.boolean(),
  token_ids: z.object({ video: z.number().int(), audio: z.number().int() }),
  servers: z.array(preflightServerSchema),
});
export type AvtimePreflightServer = z.infer<typeof preflightServerSchema>;
export type AvtimePreflightRecord = z.infer<typeof preflightRecordSchema>;
