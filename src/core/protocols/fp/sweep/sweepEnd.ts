// How a sweep ends: its state (done, stopped by a request, failed by its own judgement), the summary line
// (rows added, failures, what is left, wall time, why it failed), the last status write; or, when a step
// threw, a failed run with a report (an input error is re-thrown: exit 2, never a stack trace).
import { isUserError } from '../../../errors';
import type { StopReason } from '../../../runner/stopReason';
import type { WorkerState } from '../status/statusSchema';
import type { CellBook } from './cells';
import type { FpOutcomes } from './fpOutcomes';
import type { FpStatusReporter } from './fpStatus';
import type { ResumeResult } from './resume';
import type { SweepRun } from './sweepRun';

export interface SweepResult {
  exitCode: 0 | 1;
  state: WorkerState;
  summary: string;
  added: { ok: number; NA: number; reuse: number };
  failures: number;
  wallS: number;
  /** Why the run stopped on its own judgement (fail-fast, pre-flight, no server left); null otherwise. */
  stopReason: StopReason | null;
}

export async function endSweep(
  run: SweepRun,
  fp: { resumed: ResumeResult; book: CellBook; outcomes: FpOutcomes; status: FpStatusReporter },
): Promise<SweepResult> {
  const { drain, stopper } = run.session;
  await fp.outcomes.writePartialTimings();
  await run.metrics?.close();
  const wallS = run.wallS();
  const added = { ...fp.resumed.writer.added };
  const nAdded = added.ok + added.NA + added.reuse;
  const left = fp.book.progress().reduce((s, c) => s + c.todo, 0);
  const fatal = stopper.fatal;
  const completed = fp.resumed.report.completed.length;
  const state: WorkerState = fatal ? 'failed' : drain.requested ? 'stopped' : 'done';
  const summary =
    `${state === 'done' ? 'done' : state === 'stopped' ? 'stopped' : 'FAILED'}: ${nAdded} rows added ` +
    `(ok ${added.ok}, NA ${added.NA}, reuse ${added.reuse}), ${run.failures.count} failure(s) logged` +
    `${completed ? `, ${completed} row(s) completed from raw records at start` : ''}` +
    `${left ? `, ${left} left to do` : ''}, wall ${wallS.toFixed(1)} s` +
    `${fatal ? ` — ${fatal.message}` : ''}`;
  fp.status.state = state;
  fp.status.message = fatal ? fatal.message : null;
  await run.log.info(summary);
  await fp.status.write(summary);
  return { exitCode: fatal ? 1 : 0, state, summary, added, failures: run.failures.count, wallS, stopReason: stopper.stopReason };
}

/** A step threw: the run failed, with a report. */
export async function failSweep(run: SweepRun, err: unknown): Promise<SweepResult> {
  const e = err as Error;
  // The user's errors (a bad input, a held lock, a containment refusal): exit 2 with the message, never a stack.
  const usage = isUserError(err);
  await run.log.error(`run ${usage ? 'refused' : 'failed'}: ${usage ? e.message : (e?.stack ?? String(err))}`).catch(() => undefined);
  const summary = `FAILED: ${e?.message ?? String(err)}; wall ${run.wallS().toFixed(1)} s`;
  await run.status?.fail(e?.message ?? String(err), summary).catch(() => undefined);
  if (usage) throw err;
  // A server start refused for its context, every server gone, a disk error: a failed run with a
  // report, never a silent retry with other settings.
  return {
    exitCode: 1,
    state: 'failed',
    summary,
    added: { ok: 0, NA: 0, reuse: 0 },
    failures: run.failures.count,
    wallS: run.wallS(),
    stopReason: run.session.stopper.stopReason,
  };
}
