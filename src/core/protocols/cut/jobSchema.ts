// The cut's worker job (`--job` JSON), checked by the worker before it runs: everything the flags resolved to.
import { z } from 'zod';

export const cutJobSchema = z.object({
  /** The output root (the run root), absolute. */
  root: z.string(),
  inputRoot: z.string(),
  cutter: z.discriminatedUnion('kind', [z.object({ kind: z.literal('builtin') }), z.object({ kind: z.literal('command'), argv: z.array(z.string()).min(1) })]),
  /** --config: given to a command cutter as {config}; the builtin's settings. */
  configFile: z.string().nullable(),
  allowDegraded: z.boolean(),
  /** One entry per job slot: its CUDA_VISIBLE_DEVICES, or null when no GPU is visible. */
  lanes: z.array(z.object({ gpu: z.string().nullable() })).min(1),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  tickMs: z.number().int().positive().optional(),
});
export type CutJob = z.infer<typeof cutJobSchema>;
