// What every stage driver of a run gets: the run's plan and inputs, its status, the session's cut signal, and
// where its lines go. A driver runs one stage: it starts the stage's servers when it needs them, runs the
// stage, keeps the status current, and ends fail-closed (StageFailed) when the stage did not complete.
import type { SignalHost } from '../../../../runner/drainControl';
import type { ServerHealth } from '../../../../runner/serverHealth';
import type { Fleet } from '../../../../serving/launcher';
import type { AvtimeRunStatus } from '../runStatus';
import type { RunInputs } from '../runInputs';
import type { RunPlan } from '../runPlan';

export interface AvtimeHooks {
  log?: (line: string) => void;
  /** Aborts to stop the run from inside this process (tests, the extension host): as SIGTERM does. */
  stopSignal?: AbortSignal;
  /** Where SIGTERM/SIGINT are listened for (default this process; tests pass their own). */
  signals?: SignalHost;
  /** Server start timeout (tests). */
  startTimeoutMs?: number;
  /** Client knobs (tests shorten retries). */
  clientOptions?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Check the inputs and options, then stop before writing anything (`--detach` asks this first). */
  checkOnly?: boolean;
}

export interface StageContext {
  plan: RunPlan;
  run: RunInputs;
  status: AvtimeRunStatus;
  /**
   * Aborted when the run is stopped (the session's fail-closed policy): in-flight requests and a server start
   * are cut, and a stage that sees it ends without writing its completion artifacts.
   */
  cut: AbortSignal;
  /** A stage's result line: logged, and the verb's last line when it is the last said. */
  say: (line: string) => void;
  log: (line: string) => void;
  hooks: AvtimeHooks;
  /**
   * Given endpoints' unreachable rule (runner/unreachableRule.ts) on a stage's fleet: every one unreachable for
   * --fail-down stops the run, its requests left to do. undefined when off or launched (the launcher restarts
   * those); the stage closes it when it ends.
   */
  unreachable: (fleet: Fleet, given: boolean) => ServerHealth | undefined;
}

/** A stage that ran and did not complete: exit 1 with the stage's line; nothing later runs. */
export class StageFailed extends Error {}
