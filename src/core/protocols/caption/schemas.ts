// The caption run's own files, as zod schemas (read back by resume, status and the views): a video's outcome
// (`.fpsweep-caption/videos/<stem>.json`), a raw record (`raw/<stem>.jsonl`, one per answer or failure) and a
// rank's status file.
import { z } from 'zod';
import { rankStatusFields } from '../../runner/rankStatus';

export const tokenCountsSchema = z.object({ prompt: z.number(), candidates: z.number(), total: z.number() });
export type TokenCounts = z.infer<typeof tokenCountsSchema>;

/** The backend of an outcome (one written before issue 35 is the vLLM backend's). */
export const outcomeBackend = (o: Pick<VideoOutcome, 'backend'>) => o.backend ?? 'vllm';

export const videoOutcomeSchema = z.object({
  stem: z.string(),
  state: z.enum(['completed', 'failed']),
  /** signature.ts's, of the inputs this outcome was reached with; a completed video is done while it matches. */
  signature: z.string(),
  /** Why it failed (the validator's rule or the server's words); null when completed. */
  reason: z.string().nullable(),
  clips: z.number().int().nonnegative(),
  runId: z.string(),
  /** 0-based rank that captioned it, or null when unsharded. */
  rank: z.number().int().nullable(),
  at: z.string(),
  /** Which backend, model and normalizer made it (issue 35); absent in outcomes written before: the vLLM backend. */
  backend: z.enum(['vllm', 'gemini']).optional(),
  model: z.string().optional(),
  normalizer: z.string().optional(),
  /** Tokens the backend reported for the video's clips (Gemini's usageMetadata, summed). */
  tokens: tokenCountsSchema.optional(),
});
export type VideoOutcome = z.infer<typeof videoOutcomeSchema>;

export const rawRecordSchema = z.object({
  run_id: z.string(),
  clip: z.number().int(),
  /** sha256 of the request body as sent. */
  request_sha256: z.string(),
  prompt_sha256: z.string(),
  /** 1-based answer attempt of this clip in this run (an invalid answer is asked again). */
  attempt: z.number().int().positive(),
  /** HTTP sends behind this attempt (the client's own retries of 429, 5xx, connection errors and timeouts). */
  http_attempts: z.number().int().nonnegative(),
  /** 'ok': a valid answer; 'invalid': an answer that does not parse; else the failure's kind. */
  status: z.enum(['ok', 'invalid', 'refused', 'failed']),
  http_status: z.number().int().nullable(),
  content: z.string().nullable(),
  error: z.string().nullable(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).nullable(),
  latency_s: z.number().nullable(),
  endpoint: z.string(),
  ts: z.string(),
});
export type RawRecord = z.infer<typeof rawRecordSchema>;

export const captionStatusSchema = z.object({
  ...rankStatusFields,
  /** Videos with requests in flight now, with their clips answered so far. */
  running: z.array(z.object({ stem: z.string(), clips: z.number().int(), clipsDone: z.number().int() })),
  /** The run's backend and the tokens it spent so far (Gemini's usageMetadata; absent for vLLM). */
  backend: z.enum(['vllm', 'gemini']).optional(),
  tokens: tokenCountsSchema.optional(),
});
export type CaptionStatus = z.infer<typeof captionStatusSchema>;
