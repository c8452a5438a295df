// What `fpsweep dry-run --json` prints (SPEC §8), for readers on the other side of the process
// boundary (the extension) to validate with.
import { z } from 'zod';

/** SPEC §8: `dry-run --json` prints `{rows: [...], totals: {...}}`, counts in items. */
export const dryRunJsonSchema = z.object({
  rows: z.array(
    z
      .object({
        benchmark: z.string(),
        condition: z.string(),
        todo: z.number().int().nonnegative(),
        NA: z.number().int().nonnegative(),
        reuse: z.number().int().nonnegative(),
        done: z.number().int().nonnegative(),
        no_video: z.number().int().nonnegative(),
        bad_meta: z.number().int().nonnegative().optional(),
        context_refusals: z.number().int().nonnegative().optional(),
        /** Of todo + reuse: units whose last attempt failed (failures.jsonl). */
        failed_before: z.number().int().nonnegative().optional(),
      })
      .passthrough(),
  ),
  totals: z.record(z.unknown()).optional(),
});
export type DryRunJson = z.infer<typeof dryRunJsonSchema>;
