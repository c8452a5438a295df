// What the findings webview gets from the host, and what the Markdown charts are drawn from: the findings
// (types.ts) plus, per benchmark, the ladder points with their visual tokens (ladders.ts, computed on the
// host from the protocol's token rule). Validated with zod where it crosses a boundary.
import { z } from 'zod';
import { findingsSchema } from '../types';

export const LADDER_NAMES = ['resolution', 'frame count', 'frame rate'] as const;

export const ladderPointSchema = z.object({
  ladder: z.enum(LADDER_NAMES),
  condition: z.string(),
  /** Estimated visual tokens per request (frames × tokens per nominal frame). */
  tokens: z.number().positive(),
  acc: z.number(),
  lo: z.number(),
  hi: z.number(),
  n: z.number().int().nonnegative(),
  /** The step's place on its ladder (short side, frames or fps). */
  order: z.number(),
});
export type LadderPoint = z.infer<typeof ladderPointSchema>;

export const findingsViewSchema = z.object({
  packageDir: z.string(),
  generatedAt: z.string(),
  findings: findingsSchema,
  /** Ladder points by benchmark name. */
  ladders: z.record(z.string(), z.array(ladderPointSchema)),
  /** How the token axis was estimated (shown under the chart). */
  tokenNote: z.string(),
});
export type FindingsView = z.infer<typeof findingsViewSchema>;
