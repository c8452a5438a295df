// What a stopped AVTime run says (its status file's last line, the verb's last line): what stopped it, and what
// the user can do next — a canonical run stopped before its target shards finished cannot resume (its shards
// never do), so "--resume" would only be refused.
import type { AvtimeStatus } from './statusSchema';

export function stopAdvice(s: Pick<AvtimeStatus, 'canonical' | 'stages'>): string {
  const infer = s.stages.find((x) => x.name === 'infer');
  const inferUnfinished = !!infer && infer.state !== 'done' && infer.state !== 'skipped';
  if (s.canonical && inferUnfinished) return 'canonical target shards never resume: start a new run (new --run-id)';
  return 'continue with --resume';
}

/** The run session's stop reasons (runner/drainControl.ts) in words. */
const BY: Record<string, string> = { 'stop file': 'the stop file', 'stop signal': 'a stop request' };

/** `why`: the session's stop request ('SIGTERM', 'SIGINT', 'stop file', 'stop signal'). */
export function stoppedLine(why: string, s: Pick<AvtimeStatus, 'canonical' | 'stages'>): string {
  return `stopped by ${BY[why] ?? why} (${stopAdvice(s)})`;
}
