// One server as a run's status file shows it (ServerHealth.status builds it), whatever the run type.
import { z } from 'zod';
import { serverStateSchema } from '../serving/serverState';
import { bottleneckSchema } from './bottleneck';

export const serverStatusSchema = z.object({
  index: z.number().int().nonnegative(),
  endpoint: z.string(),
  state: serverStateSchema,
  running: z.number().nullable(),
  waiting: z.number().nullable(),
  restarts: z.number().int().nonnegative(),
  message: z.string().nullable(),
  /** What bounds this server since the scheduler started (runner/bottleneck.ts); absent before it has run. */
  bottleneck: bottleneckSchema.nullish(),
});
export type ServerStatus = z.infer<typeof serverStatusSchema>;
