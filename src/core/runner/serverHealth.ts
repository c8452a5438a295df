// The server-health policy of a run: what each server is (state, its last words, its queue figures),
// which servers the scheduler may send to, and when the servers as a whole have let the run down:
//   - every server has failed, one after another (launched servers that used up their restarts);
//   - no server has been up for `allDownLimitMs` (given endpoints that never come back);
//   - given endpoints only (`unreachable`): every server unreachable for `limitMs` — a request got no HTTP answer
//     (connection refused or reset), or its /health says down — with no answer since. Nothing restarts a server
//     we did not launch, so the run stops loudly (the URL, its words, what to do) instead of waiting for it; a
//     server that answers again in time (a request answered, or /health up) resets its clock. A server whose
//     work is done (finished(): a pinned lane, AVTime's shard, with no row left) no longer counts: the run goes on
//     while one that has work left answers, and stops once every server with work left has been unreachable.
// Each stops the run with a report (onStop). Events during our own shutdown are not news (close()).
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

/** The unreachable rule of given endpoints: its bound, and how the run type names it (its flag). */
export interface UnreachableRule {
  /** 0 = off (the all-down limit still applies). */
  limitMs: number;
  /** e.g. `--fail-down 120`: in the stop's detail, so the user knows what to change. */
  name: string;
  /** How the run resumes, when not by the same command again (default RESUME_WORDS). */
  resume?: string;
}

/** A duration as the stop says it: seconds below two minutes, else minutes. */
function spell(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}

/** What to do once the servers' words are read: the run resumes, so a restart and the same command again is all. */
export const RESUME_WORDS = 'then run the same command again: it resumes where it stopped (nothing written is lost)';

export class ServerHealth {
  private readonly views: ServerView[];
  private readonly up: boolean[];
  private allDownSince: number | null = null;
  /** Per server: unreachable since when (no answer since), with its latest words; null while it answers. */
  private readonly lost: ({ since: number | null; message: string } | null)[];
  private unreachableStopped = false;
  private closing = false;
  /** Per server: its work is done (finished()); it counts neither for nor against the unreachable rule. */
  private readonly done: boolean[];

  constructor(
    private readonly urls: readonly string[],
    private readonly hooks: ServerHealthHooks,
    private readonly allDownLimitMs = ALL_DOWN_LIMIT_MS,
    private readonly unreachable: UnreachableRule = { limitMs: 0, name: '' },
  ) {
    this.views = urls.map(() => ({ state: 'up', final: false, message: null, running: null, waiting: null }));
    this.up = urls.map(() => true);
    this.lost = urls.map(() => null);
    this.done = urls.map(() => false);
  }

  /** The servers that still have work: those the unreachable rule watches. */
  private get working(): number[] {
    return this.urls.map((_, i) => i).filter((i) => !this.done[i]);
  }

  /** Server `index` has no work left that only it could do (its pinned lane is done): it no longer counts. */
  finished(index: number): void {
    if (index >= 0 && index < this.urls.length) this.done[index] = true;
  }

  /** Server `index` is unreachable (the rule on, its clock running): a request pinned to it has nowhere to go. */
  isLost(index: number): boolean {
    return this.unreachable.limitMs > 0 && !this.unreachableStopped && this.lost[index] !== null && this.lost[index] !== undefined;
  }

  /**
   * Server `index` as the status shows it under the rule: unreachable since when (null until the rule's next tick),
   * its latest words and the rule's bound (its flag); null while it answers (or the rule is off, or it has stopped).
   */
  unreachableOf(index: number): { endpoint: string; since: number | null; message: string; rule: string } | null {
    const l = this.isLost(index) ? this.lost[index] : null;
    return l ? { endpoint: this.urls[index], since: l.since, message: l.message, rule: this.unreachable.name } : null;
  }

  /** A request to server `index` got no HTTP answer (connection refused or reset): its unreachable clock starts. */
  lostRequest(index: number, message: string, now = Date.now()): void {
    if (this.closing || this.unreachable.limitMs <= 0 || index < 0 || index >= this.urls.length) return;
    this.markLost(index, message, now);
  }

  /** Every server unreachable, with no answer since (the rule on): a lost request has nowhere else to go. */
  allLost(): boolean {
    const working = this.working;
    return this.unreachable.limitMs > 0 && !this.unreachableStopped && working.length > 0 && working.every((i) => this.lost[i] !== null);
  }

  /** Server `index` answered a request: it is reachable. */
  answered(index: number): void {
    if (this.lost[index]) {
      this.lost[index] = null;
      this.hooks.log(`server ${index} (${this.urls[index]}) answers again`);
    }
  }

  /** `health`: the words are /health's (a request's own words, when it has them, are kept: they are the server's). */
  private markLost(index: number, message: string, now: number | null, health = false): void {
    if (this.unreachableStopped) return;
    const l = this.lost[index];
    if (l) {
      if (!health) l.message = message;
      l.since ??= now;
      return;
    }
    this.lost[index] = { since: now, message };
    const who = this.urls.length > 1 ? 'every server with work left stays' : 'it stays';
    const others = this.urls.length > 1 ? 'the run goes on with the others and ' : 'the run ';
    this.hooks.log(
      `server ${index} (${this.urls[index]}) unreachable: ${message}; ${others}stops if ${who} so for ` +
        `${spell(this.unreachable.limitMs)} (${this.unreachable.name})`,
    );
  }

  /** The state at hand-over: a server not up from the start takes no request until it is. */
  handOver(initialState: (index: number) => ServerState): void {
    this.urls.forEach((_, i) => {
      const st = initialState(i);
      if (st === 'up') return;
      this.up[i] = false;
      this.views[i] = { ...this.views[i], state: st };
      if (this.unreachable.limitMs > 0) this.markLost(i, `not answering /health at the start (${st})`, null, true);
      this.hooks.onUpChange(i, false);
    });
  }

  event(e: ServerEvent): void {
    if (this.closing) return;
    this.views[e.index] = { ...this.views[e.index], state: e.state, final: e.final, message: e.message ?? null };
    const up = e.state === 'up';
    if (up) this.lost[e.index] = null;
    // The clock of a server whose /health says down starts at the next tick (the rule's clock), unless a request's started it.
    else if (this.unreachable.limitMs > 0) this.markLost(e.index, e.message ?? e.state, null, true);
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

  /** Called about once a second: the all-down-for-too-long rule, and the unreachable rule of given endpoints. */
  tick(now = Date.now()): void {
    this.unreachableTick(now);
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
        server: this.urls.length === 1 ? this.urls[0] : null,
        detail: `no server has been up for ${spell(this.allDownLimitMs)}`,
      });
    }
  }

  /** Every server with work left unreachable for the rule's bound: the run stops with their words and what to do. */
  private unreachableTick(now: number): void {
    const limit = this.unreachable.limitMs;
    if (limit <= 0 || this.urls.length === 0 || this.closing || this.unreachableStopped) return;
    for (const l of this.lost) if (l) l.since ??= now;
    const working = this.working;
    if (working.length === 0 || working.some((i) => this.lost[i] === null)) return;
    const lost = working.map((i) => this.lost[i] as { since: number; message: string });
    if (now - Math.max(...lost.map((l) => l.since)) < limit) return;
    const urls = working.map((i) => this.urls[i]);
    const one = urls.length === 1;
    const words = one ? lost[0].message : lost.map((l, i) => `${urls[i]}: ${l.message}`).join('; ');
    const a = (this.hooks.advise ?? adviseFailure)(lost[lost.length - 1].message, null, 'server_down');
    const where = one ? `the server at ${urls[0]}` : `the servers (${urls.join(', ')})`;
    const check = one ? a.action.replaceAll('<url>', urls[0]) : a.action;
    // Servers whose work is done are not waited for: the stop names the ones that hold what is left.
    const left = urls.length < this.urls.length ? ` with work left (of ${this.urls.length}; the others have finished theirs)` : '';
    const who = one ? (this.urls.length === 1 ? 'the only server' : `the only server${left}`) : `all ${urls.length} servers${left}`;
    this.hooks.onStop({
      rule: 'servers_down',
      kind: 'server_down',
      message: words,
      meaning: a.meaning,
      action: `restart ${where}: ${check}; ${this.unreachable.resume ?? RESUME_WORDS}`,
      server: one ? urls[0] : null,
      detail: `${who} unreachable for ${spell(limit)} (the rule: ${this.unreachable.name})`,
    });
    this.unreachableStopped = true;
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
