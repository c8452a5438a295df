// The server-health policy of a run: what each server is (state, its last words, its queue figures),
// which servers the scheduler may send to, and when the servers as a whole have let the run down:
//   - every server has failed, one after another (launched servers that used up their restarts);
//   - no server has been up for `allDownLimitMs` (given endpoints that never come back).
// Either stops the run with a report (onStop). Events during our own shutdown are not news (close()).
import { adviseFailure, type Advise } from './failureAdvice';
import type { ServerState } from '../serving/serverState';
import type { ServerEvent } from './servers';
import type { ServerStatus } from './serverStatus';
import type { StopReason } from './stopReason';

/** With every server down this long, the run stops (launched servers restart within minutes). */
export const ALL_DOWN_LIMIT_MS = Number(process.env.FPSWEEP_ALL_DOWN_LIMIT_MS) || 10 * 60_000;

interface ServerView {
  state: ServerState;
  /** Down for good (the launcher gave up on it). */
  final: boolean;
  message: string | null;
  running: number | null;
  waiting: number | null;
}

export interface ServerHealthHooks {
  /** A server became able (or unable) to take requests: the scheduler's business. */
  onUpChange(index: number, up: boolean): void;
  /** The servers have let the run down. */
  onStop(reason: StopReason): void;
  log(line: string): void;
  /** The run type's advice for the servers' last words (default: the engine's). */
  advise?: Advise;
}

export class ServerHealth {
  private readonly views: ServerView[];
  private readonly up: boolean[];
  private allDownSince: number | null = null;
  private closing = false;

  constructor(
    private readonly urls: readonly string[],
    private readonly hooks: ServerHealthHooks,
    private readonly allDownLimitMs = ALL_DOWN_LIMIT_MS,
  ) {
    this.views = urls.map(() => ({ state: 'up', final: false, message: null, running: null, waiting: null }));
    this.up = urls.map(() => true);
  }

  /** The state at hand-over: a server not up from the start takes no request until it is. */
  handOver(initialState: (index: number) => ServerState): void {
    this.urls.forEach((_, i) => {
      const st = initialState(i);
      if (st === 'up') return;
      this.up[i] = false;
      this.views[i] = { ...this.views[i], state: st };
      this.hooks.onUpChange(i, false);
    });
  }

  event(e: ServerEvent): void {
    if (this.closing) return;
    this.views[e.index] = { ...this.views[e.index], state: e.state, final: e.final, message: e.message ?? null };
    const up = e.state === 'up';
    if (this.up[e.index] !== up) {
      this.up[e.index] = up;
      this.hooks.log(`server ${e.index} (${this.urls[e.index]}) is ${e.final ? 'failed' : e.state}${e.message ? `: ${e.message}` : ''}`);
      this.hooks.onUpChange(e.index, up);
    }
    if (e.final && this.up.every((x) => !x) && this.views.every((v) => v.state === 'down')) {
      const words = e.message ?? 'gave up';
      const a = (this.hooks.advise ?? adviseFailure)(words, null, 'server_down');
      this.hooks.onStop({
        rule: 'servers_down',
        kind: 'server_down',
        message: words,
        meaning: a.meaning,
        action: `${a.action}; see logs/vllm_gpu*.log`,
        server: this.urls[e.index],
        detail: `every server has failed, one after another (last: server ${e.index})`,
      });
    }
  }

  /** Called about once a second: the all-down-for-too-long rule. */
  tick(now = Date.now()): void {
    if (this.views.length === 0 || this.views.some((v) => v.state === 'up')) {
      this.allDownSince = null;
      return;
    }
    this.allDownSince ??= now;
    if (now - this.allDownSince > this.allDownLimitMs) {
      const words = this.views.map((x, i) => `server ${i}: ${x.message ?? x.state}`).join('; ');
      const a = (this.hooks.advise ?? adviseFailure)(words, null, 'server_down');
      this.hooks.onStop({
        rule: 'servers_down',
        kind: 'server_down',
        message: words,
        meaning: a.meaning,
        action: `${a.action}; see logs/runner.log`,
        server: null,
        detail: `no server has been up for ${Math.round(this.allDownLimitMs / 60000)} min`,
      });
    }
  }

  /** Queue figures scraped from a server's /metrics. */
  figures(index: number, f: { running: number; waiting: number }): void {
    this.views[index] = { ...this.views[index], running: f.running, waiting: f.waiting };
  }

  /** The servers as the status file shows them. */
  status(restarts: (index: number) => number): ServerStatus[] {
    return this.urls.map((endpoint, index) => ({
      index,
      endpoint,
      state: this.views[index].state,
      running: this.views[index].running,
      waiting: this.views[index].waiting,
      restarts: restarts(index),
      message: this.views[index].message,
    }));
  }

  /** Our own shutdown of the servers begins: their state changes from now on are ours. */
  close(): void {
    this.closing = true;
  }
}
