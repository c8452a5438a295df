// What a stopped or failed AVTime run says (its status file's last line, the verb's last line): what stopped it,
// and what the user can do next — true for this run. A canonical run whose target shards did not finish cannot
// resume (SPEC-AVTIME §3: "no resume and fail closed"; §8: an incomplete canonical shard means a new run), so
// "--resume" would only be refused: its advice is a new run, in an output root of its own (the seed's "choose a new
// RUN_ID or OUTPUT_ROOT"). A non-canonical run (--keep-going) resumes: its written rows are kept, the rest asked.
import type { AvtimeStatus } from './statusSchema';
import { adviseFailure } from '../../../runner/failureAdvice';
import { RESUME_WORDS } from '../../../runner/serverHealth';

/**
 * Where a new run goes: a new output root. With --output-root given, a new --run-id alone would land in the
 * same (refused) root; without it, the root is outputs/avtime-bench/<RUN_ID>, so a new --run-id is one.
 */
export function newRunWords(outputRootGiven: boolean): string {
  return outputRootGiven ? 'new --output-root' : 'new --run-id';
}

export function stopAdvice(s: Pick<AvtimeStatus, 'canonical' | 'stages'>, newRun = newRunWords(false)): string {
  const infer = s.stages.find((x) => x.name === 'infer');
  const inferUnfinished = !!infer && infer.state !== 'done' && infer.state !== 'skipped';
  if (s.canonical && inferUnfinished) return `canonical target shards never resume: start a new run (${newRun})`;
  return 'continue with --resume';
}

/** The run session's stop reasons (runner/drainControl.ts) in words. */
const BY: Record<string, string> = { 'stop file': 'the stop file', 'stop signal': 'a stop request' };

/** `why`: the session's stop request ('SIGTERM', 'SIGINT', 'stop file', 'stop signal'). */
export function stoppedLine(why: string, s: Pick<AvtimeStatus, 'canonical' | 'stages'>, newRun?: string): string {
  return `stopped by ${BY[why] ?? why} (${stopAdvice(s, newRun)})`;
}

/** How a stopped non-canonical run is taken up again: the same command, when it already continues the run; else with --resume. */
export function resumeWords(continuing: boolean, runId: string): string {
  if (continuing) return RESUME_WORDS;
  return `then run the same command with --resume (run id ${runId}): it resumes where it stopped (nothing written is lost)`;
}

/** A failed target row: its shard and the server it was sent to. */
export interface FailedTargetRow {
  shard: number;
  endpoint: string;
  id: string;
  kind: string;
  message: string;
}

/**
 * What to do after target inference failed (appended to its FAILED line): the first failed row with its server's
 * words, what they likely mean and what to do when the server gave no answer, then how to go on — a new run for a
 * canonical run, its resume for a non-canonical one.
 */
export function inferFailureAdvice(
  first: FailedTargetRow | null,
  run: { canonical: boolean; continuing: boolean; runId: string; outputRootGiven: boolean },
): string {
  const parts: string[] = [];
  if (first) {
    parts.push(`The first failed row: shard${first.shard} ${first.id} (${first.kind}) at ${first.endpoint}: ${first.message}`);
    if (first.kind === 'server_down') {
      const a = adviseFailure(first.message, null, first.kind);
      parts.push(`likely: ${a.meaning}`, `do: restart the server at ${first.endpoint}: ${a.action.replaceAll('<url>', first.endpoint)}`);
    } else parts.push("do: fix what the row's error names");
  }
  const then = parts.length ? 'then ' : 'do: ';
  parts.push(
    run.canonical
      ? `${then}start a new run (${newRunWords(run.outputRootGiven)}): a canonical run's target shards never resume, ` +
          'and its artifacts stay as they are (SPEC-AVTIME §3, §8); --keep-going starts a non-canonical run (recorded as ' +
          'such) whose rows --resume keeps'
      : `${then}${resumeWords(run.continuing, run.runId).replace(/^then /, '')}; the failed rows are asked again`,
  );
  return parts.join('; ');
}
