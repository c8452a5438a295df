// Failure cascades: a run stopped by its own judgement. Three ways in: a fail-fast trip (failFast.ts),
// a failed pre-flight or every server gone (stopFor with their reason), and a server that cannot hold
// the protocol's context (contextTooSmall). Each makes the run fail with the reason in the log, the
// status file and the last line, and asks for a drain. After a stop by reason, in-flight requests get
// `graceMs` to end, then `cutSignal` aborts them (their units stay todo for the next run).
import type { ContextLengthError } from '../serving/contextLength';
import type { Trip } from './failFast';
import { adviseFailure, type Advise } from './failureAdvice';
import type { DrainControl } from './drainControl';
import type { StopReason } from './stopReason';

/** After a fail-fast stop, in-flight requests get this long to end before they are cut (and stay todo). */
export const STOP_GRACE_MS = 20_000;

/** A run stopped by its own judgement (fail-fast, pre-flight, no server left), with the reason to show. */
export class SystematicFailureError extends Error {
  constructor(readonly reason: StopReason) {
    super(`${reason.detail}; the server said: "${reason.message}"`);
    this.name = 'SystematicFailureError';
  }
}

/** A fail-fast trip as the run's stop reason: the server's words, their meaning, what to do. */
export function tripStopReason(t: Trip, endpointUrls: readonly string[], advise: Advise = adviseFailure): StopReason {
  const a = advise(t.message, t.status, t.kind);
  return {
    rule: t.rule,
    kind: t.kind,
    message: t.message,
    meaning: a.meaning,
    action: a.action,
    server: t.server !== null ? (endpointUrls[t.server] ?? null) : null,
    detail: `fail-fast: ${t.detail}`,
  };
}

export class RunStopper {
  private fatalError: Error | null = null;
  private reason: StopReason | null = null;
  private readonly cut = new AbortController();
  private cutTimer: NodeJS.Timeout | null = null;
  /** Server URLs by index, to name the server a trip came from (set once the servers are known). */
  endpointUrls: readonly string[] = [];
  /** What a trip's words mean and what to do: the run type's table, else the engine's. */
  advise: Advise = adviseFailure;

  constructor(
    private readonly drain: DrainControl,
    private readonly log: (line: string) => void,
    private readonly graceMs = STOP_GRACE_MS,
  ) {}

  /** Why the run fails (the first stop reason, or a context too small), null while it does not. */
  get fatal(): Error | null {
    return this.fatalError;
  }

  get stopReason(): StopReason | null {
    return this.reason;
  }

  /** Aborted `graceMs` after a stop by reason: in-flight requests are cut. */
  get cutSignal(): AbortSignal {
    return this.cut.signal;
  }

  /** Stops the run for `reason`, unless it already fails. */
  stopFor(reason: StopReason): void {
    if (this.fatalError) return;
    this.reason = reason;
    this.fatalError = new SystematicFailureError(reason);
    this.log(`stopping: ${reason.detail}`);
    this.log(`  the server said: ${reason.message}${reason.server ? ` (${reason.server})` : ''}`);
    this.log(`  likely: ${reason.meaning}`);
    this.log(`  do: ${reason.action}`);
    this.drain.request(reason.rule === 'preflight' ? 'pre-flight failed' : 'systematic failure');
    this.cutTimer = setTimeout(() => this.cut.abort(new Error('fail-fast stop')), this.graceMs);
  }

  /** A fail-fast monitor's answer: a trip stops the run, null changes nothing. */
  trip(t: Trip | null): void {
    if (t) this.stopFor(tripStopReason(t, this.endpointUrls, this.advise));
  }

  /**
   * A server refused a request for a context below the protocol's: no request of this run is safe to
   * send. The run fails with `err` (in-flight requests finish: they are not cut).
   */
  contextTooSmall(err: ContextLengthError): void {
    this.fatalError = err;
    this.drain.request('server context too small');
  }

  /** Cuts in-flight requests now (a stop under a fail-closed policy): `why` is the abort's reason. */
  cutNow(why: string): void {
    if (!this.cut.signal.aborted) this.cut.abort(new Error(why));
  }

  dispose(): void {
    if (this.cutTimer) clearTimeout(this.cutTimer);
    this.cutTimer = null;
  }
}
