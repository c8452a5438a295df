// Why a run stopped on its own judgement (fail-fast, pre-flight, every server gone), whatever its run type:
// RunStopper and ServerHealth decide it, a run type's status file carries it, the CLI prints it.
import { z } from 'zod';

/**
 * Why a run stopped on its own (fail-fast, pre-flight, every server gone): the server's words, what they
 * likely mean, what to do. Null while running and after a run that ended normally or on request.
 */
export const stopReasonSchema = z.object({
  rule: z.enum(['same_in_a_row', 'first_requests', 'decode', 'preflight', 'servers_down', 'key_refused']),
  kind: z.string(),
  message: z.string(),
  meaning: z.string(),
  action: z.string(),
  /** The server's URL, when one server's answers decided it. */
  server: z.string().nullable(),
  detail: z.string(),
});
export type StopReason = z.infer<typeof stopReasonSchema>;

/** Why a run stopped on its own, as the CLI and the status print it. */
export function stopReasonLines(r: StopReason): string[] {
  return [
    `stopped on its own: ${r.detail}`,
    `  the server said: ${r.message}${r.server ? ` (${r.server})` : ''}`,
    `  likely: ${r.meaning}`,
    `  do: ${r.action}`,
  ];
}
