// The detached worker's AVTime job as JSON (light: the extension and the worker's argument check load it
// without the stages).
import { z } from 'zod';
import { AVTIME_VERBS } from './options';

export const avtimeJobSchema = z.object({
  verb: z.enum(AVTIME_VERBS),
  options: z.record(z.string(), z.unknown()),
  /** The output root the parent resolved (so the worker locks the same one). */
  outputRoot: z.string(),
  runId: z.string(),
});
export type AvtimeJob = z.infer<typeof avtimeJobSchema>;
