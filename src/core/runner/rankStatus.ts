// The fields every data job's rank status file shares (the caption's, the cut's): who writes it, how far the
// rank's selection is, and why it stopped. A run type's status schema is these plus what it runs now.
import { z } from 'zod';

export const rankStatusFields = {
  runId: z.string(),
  pid: z.number().int(),
  state: z.enum(['starting', 'running', 'stopped', 'done', 'failed']),
  /** 0-based rank and rank count; null when unsharded. */
  rank: z.number().int().nullable(),
  of: z.number().int().nullable(),
  selected: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  stopRequested: z.string().nullable(),
  summary: z.string().nullable(),
};
