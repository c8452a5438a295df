// The unreachable rule of servers a run was given (--base-url, --judge-endpoint, …): nothing of ours restarts
// them, so every one unreachable (refused, reset, /health down) for --fail-down seconds stops the run — exit 1,
// the URL, its words, "restart it, then run the same command again" — and their requests stay to do, none
// written off as failures (RequestChannel.judge requeues while every server is lost). One rule per fleet;
// close() it when the fleet's stage ends, so a later stage's servers are not judged by it.
import type { RunSession } from './runSession';
import type { Fleet, ServerStateEvent } from '../serving/launcher';
import { ServerHealth } from './serverHealth';
import type { Advise } from './failureAdvice';

export interface UnreachableRuleOptions {
  /** --fail-down S (0 = off: undefined is returned). */
  failDownS: number;
  log: (line: string) => void;
  /** The run type's advice table (default the engine's). */
  advise?: Advise;
  /** How the run is resumed, when not by the same command again (serverHealth.ts RESUME_WORDS). */
  resume?: string;
}

/** The rule on `fleet`'s given servers, ticked by the session; undefined when it is off. */
export function unreachableRule(session: RunSession, fleet: Fleet, o: UnreachableRuleOptions): ServerHealth | undefined {
  if (o.failDownS <= 0) return undefined;
  const urls = fleet.handles.map((h) => h.url);
  const health = new ServerHealth(
    urls,
    { onUpChange: () => undefined, onStop: (reason) => session.stopper.stopFor(reason), log: o.log, advise: o.advise },
    undefined,
    { limitMs: o.failDownS * 1000, name: `--fail-down ${o.failDownS}`, resume: o.resume },
  );
  // A server not up at the hand-over is lost from the start (its clock starts at the next tick).
  health.handOver((i) => fleet.handles[i].state);
  fleet.on('state', (e: ServerStateEvent) => {
    const index = urls.indexOf(e.url);
    if (index >= 0) health.event({ index, state: e.state, final: e.final, message: e.message });
  });
  session.onTick(() => health.tick());
  session.defer(() => health.close());
  return health;
}
