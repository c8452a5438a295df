// The engine's side of one request: send it on a server (cut when that server stops being up, or when
// a stop cuts in-flight work), and judge a failed one before the protocol records it:
//   - cut by a stop: no answer came, so it is no failure; it goes back (and stays todo if never sent);
//   - the server went away: it goes to another server, up to `maxRequeues` times (not fail-fast's
//     business: a server that keeps dying is the servers_down rule's);
//   - otherwise the fail-fast monitor sees it (a refusal the protocol predicted is an answer, ignored);
//   - a context refusal naming a context below the protocol's stops the run (never lowered).
import type { ChatRequestBody } from '../serving/chatRequest';
import type { ChatFailure, ChatResult } from '../serving/client';
import type { FailFastMonitor } from './failFast';
import type { DrainControl } from './drainControl';
import type { RunStopper } from './runStopper';
import { contextShortfallOfRefusal } from '../serving/contextLength';

/** A re-queued request goes to another server at most this many times before it is a failure. */
export const MAX_REQUEUES = 3;

/** What to do with a failed request. */
export type FailedRequestVerdict =
  | { action: 'requeue' }
  /** Record the failure; `contextTooSmall`: the server cannot hold the protocol's context (the run stops). */
  | { action: 'fail'; contextTooSmall: boolean };

export interface ChatSender {
  chat(body: ChatRequestBody, signal?: AbortSignal): Promise<ChatResult>;
}

export class RequestChannel {
  /** Per server: answered requests and the sum of their latency as we saw it (the bottleneck verdict's client side). */
  private readonly answeredTimes: { requests: number; latencyS: number }[];

  constructor(
    private readonly clients: readonly ChatSender[],
    private readonly endpoints: readonly string[],
    private readonly run: {
      upSignal?(index: number): AbortSignal;
      stopper: RunStopper;
      drain: DrainControl;
      monitor: FailFastMonitor;
      /** The context every server must hold (the protocol's). */
      contextTokens: number;
      maxRequeues?: number;
    },
  ) {
    this.answeredTimes = clients.map(() => ({ requests: 0, latencyS: 0 }));
  }

  async send(index: number, body: ChatRequestBody): Promise<ChatResult> {
    const cut = this.run.stopper.cutSignal;
    const up = this.run.upSignal?.(index);
    const res = await this.clients[index].chat(body, up ? AbortSignal.any([up, cut]) : cut);
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
    this.run.monitor.request({ server: index, ok: true });
  }

  /** `expected`: the protocol predicted this refusal (an answer, not a sign of a broken setup). */
  judge(index: number, res: ChatFailure, requeues: number, expected: boolean): FailedRequestVerdict {
    if (this.run.stopper.cutSignal.aborted) return { action: 'requeue' };
    if (res.kind === 'server_down' || (res.kind === 'request' && res.status === null)) {
      if (requeues < (this.run.maxRequeues ?? MAX_REQUEUES) && !this.run.drain.requested) return { action: 'requeue' };
    }
    this.run.stopper.trip(this.run.monitor.request({ server: index, ok: false, kind: res.kind, message: res.message, status: res.status, expected }));
    if (res.kind === 'context') {
      const shortfall = contextShortfallOfRefusal(this.endpoints[index], res.message, this.run.contextTokens);
      if (shortfall) {
        this.run.stopper.contextTooSmall(shortfall);
        return { action: 'fail', contextTooSmall: true };
      }
    }
    return { action: 'fail', contextTooSmall: false };
  }
}
