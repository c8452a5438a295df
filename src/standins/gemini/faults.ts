// The stand-in Gemini's fault knobs, per uploaded file, matched by its displayName (the caption backend names each
// upload `<stem>/clip_NNNN`). Counts are of generateContent calls (or files.get calls for `activeAfterGets`), so a
// test waits for states it caused, never for time.
import { z } from 'zod';

export const clipFaultsSchema = z.object({
  /** The first N generateContent calls answer 429 RESOURCE_EXHAUSTED with RetryInfo `retryDelay` (below). */
  rateLimited: z.number().int().nonnegative().optional(),
  /** RetryInfo's retryDelay (a Duration: "1s", "0.05s"); absent: the 429 carries no RetryInfo. */
  retryDelay: z.string().optional(),
  /** The first N generateContent calls answer 503 UNAVAILABLE ("The model is overloaded"). */
  unavailable: z.number().int().nonnegative().optional(),
  /** The first N generateContent calls answer 400 INVALID_ARGUMENT. */
  invalidArgument: z.number().int().nonnegative().optional(),
  /** The answer is blocked: finishReason SAFETY (or RECITATION) and no text. */
  blockAnswer: z.enum(['SAFETY', 'RECITATION']).optional(),
  /** The prompt is blocked: promptFeedback.blockReason and no candidates. */
  blockPrompt: z.enum(['SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT']).optional(),
  /** The first N answers are empty (a candidate with finishReason STOP and no text). */
  empty: z.number().int().nonnegative().optional(),
  /** The first N answers are text that is no JSON. */
  prose: z.number().int().nonnegative().optional(),
  /** The file's processing: 'stuck' stays PROCESSING, 'failed' ends FAILED; default ACTIVE after 1 get. */
  processing: z.enum(['stuck', 'failed']).optional(),
  activeAfterGets: z.number().int().nonnegative().optional(),
  /** generateContent is held open until the stand-in closes (a kill -9 test holds a clip in flight). */
  hold: z.boolean().optional(),
});
export type ClipFaults = z.infer<typeof clipFaultsSchema>;

/** A faults file (`--faults FILE`): displayName prefix → faults; the longest matching prefix wins. */
export const faultsFileSchema = z.record(z.string(), clipFaultsSchema);

export function faultsFrom(table: Record<string, ClipFaults>): (displayName: string) => ClipFaults {
  const keys = Object.keys(table).sort((a, b) => b.length - a.length);
  return (name) => {
    const k = keys.find((p) => name.startsWith(p));
    return k !== undefined ? table[k] : {};
  };
}
