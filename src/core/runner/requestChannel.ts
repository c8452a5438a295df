// The engine's side of one request: send it on a server (cut when that server stops being up, when a stop
// cuts in-flight work, or when the run's requests were stopped), and judge a failed one before the run type
// records it:
//   - cut by a stop: no answer came, so it is no failure; it goes back (and stays todo if never sent);
//   - then the run type's failure policy says what the failure means: requeue, record, or record and stop
//     the run's requests. The engine's default: a lost server (down, or no HTTP answer) sends the request to
//     another server, up to `maxRequeues` times, never while draining and never for a pinned request (its
//     lane is its server); anything else is recorded;
//   - a recorded failure goes to the fail-fast monitor, when the run has one (a refusal the run type
//     predicted is an answer, ignored), and a context refusal naming a context below the run's stops the run.
// The body is the run type's: FP's image chat, AVTime's video+audio target request, the judge's JSON schema.
import type { ChatFailure, ChatResult } from '../serving/client';
import type { FailFastMonitor, Trip } from './failFast';
import type { ContextLengthError } from '../serving/contextLength';
import { contextShortfallOfRefusal } from '../serving/contextLength';

/** A re-queued request goes to another server at most this many times before it is a failure. */
export const MAX_REQUEUES = 3;

/** What to do with a failed request. */
export type FailedRequestVerdict =
  | { action: 'requeue' }
  /** Record the failure; `contextTooSmall`: the server cannot hold the run's context (the run stops). */
  | { action: 'fail'; contextTooSmall: boolean };

/** What a failed request means, as the run type says: sent again, recorded, or recorded and the run's requests stopped. */
export type FailureMeaning = 'requeue' | 'record' | 'stop';

export interface FailedRequest {
  failure: ChatFailure;
  /** Times this request went back already. */
  requeues: number;
  /** It must stay on its server (a pinned lane). */
  pinned: boolean;
  /** A drain was asked for. */
  draining: boolean;
  /** The server went away under it (down, or no HTTP answer). */
  serverLost: boolean;
}

export type FailurePolicy = (f: FailedRequest) => FailureMeaning;

/** The engine's default policy: a lost server's unpinned request goes elsewhere (bounded), the rest is recorded. */
export function requeueLostServers(maxRequeues = MAX_REQUEUES): FailurePolicy {
  return (f) => (f.serverLost && !f.pinned && !f.draining && f.requeues < maxRequeues ? 'requeue' : 'record');
}

export interface ChatSender<B = object> {
  chat(body: B, signal?: AbortSignal): Promise<ChatResult>;
}

/** What a channel needs of the run: RunSession's drain and stopper fit; a run without a session passes less. */
export interface ChannelRun {
  upSignal?(index: number): AbortSignal | undefined;
  /** Aborted when in-flight work must end (the session's cut); default: the stopper's. */
  cutSignal?: AbortSignal;
  /** Where trips and a context too small go (RunSession's stopper); absent, they stop nothing. */
  stopper?: {
    readonly cutSignal?: AbortSignal;
    trip(t: Trip | null): void;
    contextTooSmall(err: ContextLengthError): void;
  };
  drain?: { readonly requested: string | null };
  /** Aborted when the run's requests were stopped (a 'stop' verdict, or the runner's own stop). */
  stopSignal?: AbortSignal;
  /** Fail-fast: absent, recorded failures stop nothing. */
  monitor?: FailFastMonitor;
  /** The context every server must hold (the run type's); absent, context refusals are plain failures. */
  contextTokens?: number;
  maxRequeues?: number;
  /** What a failure means (default requeueLostServers(maxRequeues)). */
  policy?: FailurePolicy;
  /** A 'stop' verdict: the run's requests end (called once per such failure, before it is recorded). */
  stop?(why: string): void;
  /** Told when a server gave no HTTP answer (refused, reset) and when it answers (ServerHealth's unreachable rule). */
  reach?: ServerReach;
}

/** Who keeps count of the servers that stopped answering: ServerHealth fits. */
export interface ServerReach {
  lostRequest(index: number, message: string): void;
  answered(index: number): void;
  /** Every server is unreachable now (its rule's clock runs for each). */
  allLost(): boolean;
  /** Server `index` is unreachable now (the rule's clock runs for it): what is pinned to it has nowhere else to go. */
  isLost?(index: number): boolean;
}

export class RequestChannel<B = object> {
  /** Per server: answered requests and the sum of their latency as we saw it (the bottleneck verdict's client side). */
  private readonly answeredTimes: { requests: number; latencyS: number }[];

  constructor(
    private readonly clients: readonly ChatSender<B>[],
    private readonly endpoints: readonly string[],
    private readonly run: ChannelRun,
  ) {
    this.answeredTimes = endpoints.map(() => ({ requests: 0, latencyS: 0 }));
  }

  /** The signals that cut a request on server `index`, read now (a restarted server has a new up signal). */
  private cutSignals(index: number): AbortSignal[] {
    const up = this.run.upSignal?.(index);
    return [up, this.sessionCut, this.run.stopSignal].filter((s): s is AbortSignal => s !== undefined);
  }

  private get sessionCut(): AbortSignal | undefined {
    return this.run.cutSignal ?? this.run.stopper?.cutSignal;
  }

  /** Cut by a stop (not by its server): no answer came, so it is no failure. */
  get cut(): boolean {
    return this.sessionCut?.aborted === true || this.run.stopSignal?.aborted === true;
  }

  async send(index: number, body: B): Promise<ChatResult> {
    const signals = this.cutSignals(index);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const res = await this.clients[index].chat(body, signal);
    if (res.ok) {
      this.answeredTimes[index].requests++;
      this.answeredTimes[index].latencyS += res.latency_s;
    }
    return res;
  }

  /** Answered requests of server `index` so far, and the sum of their latency. */
  answeredTime(index: number): { requests: number; latencyS: number } {
    return { ...this.answeredTimes[index] };
  }

  /** An answer came: fail-fast's streaks on that server end. */
  answered(index: number): void {
    this.run.reach?.answered(index);
    this.run.monitor?.request({ server: index, ok: true });
  }

  /**
   * `expected`: the run type predicted this refusal (an answer, not a sign of a broken setup).
   * `pinned`: the request must stay on server `index` (never sent elsewhere).
   */
  judge(index: number, res: ChatFailure, requeues: number, expected: boolean, pinned = false): FailedRequestVerdict {
    if (this.cut) return { action: 'requeue' };
    const serverLost = res.kind === 'server_down' || (res.kind === 'request' && res.status === null);
    // No HTTP answer at all (refused, reset; not a cut by its down signal, which /health's news already told).
    if (res.kind === 'server_down' && res.status === null && !res.message.startsWith('aborted:')) this.run.reach?.lostRequest(index, res.message);
    // Every server unreachable (or, for a pinned request, its own): no other server to send it to, and no answer came;
    // it stays to do while the reach's rule decides (the server answers again, or the run stops: "never the plan
    // written off as failures").
    if (serverLost && (this.run.reach?.allLost() || (pinned && this.run.reach?.isLost?.(index)))) return { action: 'requeue' };
    const draining = (this.run.drain?.requested ?? null) !== null;
    // A server lost while the run drains: the stop that drains us most likely reached it too (a scheduler's cancel
    // signals every process of the job, our servers included): no answer came, so no failure; it stays to do (issue 43).
    if (draining && serverLost) return { action: 'requeue' };
    const policy = this.run.policy ?? requeueLostServers(this.run.maxRequeues);
    const meaning = policy({ failure: res, requeues, pinned, draining, serverLost });
    if (meaning === 'requeue') return { action: 'requeue' };
    if (meaning === 'stop') this.run.stop?.(`${this.endpoints[index]}: ${res.kind}: ${res.message}`);
    if (this.run.monitor) {
      this.run.stopper?.trip(this.run.monitor.request({ server: index, ok: false, kind: res.kind, message: res.message, status: res.status, expected }));
    }
    if (res.kind === 'context' && this.run.contextTokens !== undefined) {
      const shortfall = contextShortfallOfRefusal(this.endpoints[index], res.message, this.run.contextTokens);
      if (shortfall) {
        this.run.stopper?.contextTooSmall(shortfall);
        return { action: 'fail', contextTooSmall: true };
      }
    }
    return { action: 'fail', contextTooSmall: false };
  }
}
