// The engine's request runner: every run type's requests go through it. It composes the scheduler (which
// server takes which task, preparation ahead of the servers), the request channel (send, cut, judge a
// failure by the run type's policy), the servers' health (a server down takes no work; its unpinned
// requests go elsewhere) and the run's stop (a drain stops dispatch and lets in-flight requests finish; a
// cut ends them, and a cut request is no failure). The run type gives what a task is and does: its
// preparation, its request and what its answer or failure writes (`execute`), and what a failure means.
// Pinned lanes: a job with `pin: k` runs on server k only, in a lane of its own (its own queue and
// capacity; nothing is stolen from it, nothing re-queued elsewhere). A pinned lane whose server is down waits
// for it: the run's health rule (or the run type) decides when that stops the run.
import { setMaxListeners } from 'node:events';
import type { ChatFailure, ChatResult } from '../serving/client';
import type { Fleet } from '../serving/launcher';
import type { FailFastMonitor } from './failFast';
import { RequestChannel, type ChannelRun, type ChatSender, type FailedRequestVerdict, type FailurePolicy, type ServerReach } from './requestChannel';
import { Scheduler, type SchedServerInfo, type SchedTask, type SchedJob, type SchedulerStats, type ServerTimeAccount, type TaskOutcome } from './scheduler';

/** A unit of affinity (FP: a video): its tasks go to one server; `pin`: that server is fixed. */
export interface RunnerJob extends SchedJob {
  pin?: number;
}

/** What a task's execute uses to send: the channel, as the task's lane sees it (a pinned lane never requeues elsewhere). */
export interface TaskChannel<B> {
  send(index: number, body: B): Promise<ChatResult>;
  answered(index: number): void;
  judge(index: number, res: ChatFailure, requeues: number, expected: boolean): FailedRequestVerdict;
  /** Cut by a stop: the request is no failure. */
  readonly cut: boolean;
}

export interface RequestWork<V extends RunnerJob, B> {
  /** Preparation of a job before any of its tasks is sent (FP: frames); false: nothing of it to send. None: ready at once. */
  prepare?(job: V): Promise<boolean>;
  /** One task: its request through `channel`, then what its answer or failure writes; `requeue` sends it again. */
  execute(task: SchedTask, job: V, server: SchedServerInfo, requeues: number, channel: TaskChannel<B>): Promise<TaskOutcome>;
  /** Every task of the job has finished. */
  jobFinished?(job: V): void;
  /** A hook threw: the run cannot go on safely (the runner stops and run() rejects). */
  onFatal?(err: unknown): void;
}

/** The servers the requests go to, in server order. */
export interface RequestServers<B> {
  urls: readonly string[];
  senders: readonly ChatSender<B>[];
  /** Aborted when server `index` stops being up; read at each request (a restart makes a new one). */
  upSignal?(index: number): AbortSignal | undefined;
}

/** What the runner needs of the run: a RunSession fits (drain, stopper, cutSignal); a run without one passes less. */
export interface RunControl {
  cutSignal?: AbortSignal;
  drain?: { readonly requested: string | null; onDrain(listener: (why: string) => void): void };
  stopper?: ChannelRun['stopper'];
}

export interface RunnerOptions {
  /** Per server: requests in flight, and the predicted cost it may hold in flight (SchedTask.cost). */
  slots: readonly { capacity: number; tokenBudget?: number }[];
  /** Jobs prepared and waiting (per lane; default twice the lane's capacity). */
  prefetch?: number;
  /** Jobs prepared at once (per lane; default the lane's capacity). */
  prepConcurrency?: number;
  maxOpenVideos?: number;
  warmVideos?: boolean;
  /** What a failed request means (default: requeueLostServers). */
  policy?: FailurePolicy;
  maxRequeues?: number;
  monitor?: FailFastMonitor;
  /** The context every server must hold: a refusal naming less stops the run. */
  contextTokens?: number;
  /** Told of requests that got no HTTP answer and of answers (the unreachable rule of given endpoints). */
  reach?: ServerReach;
  /**
   * The servers' fleet, followed from the start: a server not up takes no request until it is (its unpinned work
   * moves, its lane waits). Without it a server whose /health says down is still sent to, and its up signal, already
   * aborted, fails each request at once: under the unreachable rule such a request goes back to do and is sent again
   * at once, a loop with no end that starves the run's tick (the rule's own clock). Give it wherever something bounds
   * the wait (the unreachable rule, a launcher that restarts or gives up); see follow().
   */
  fleet?: Pick<Fleet, 'on' | 'handles'>;
}

/** Shared queue of unpinned jobs, or the lane of server `pin`. */
interface Lane<V extends RunnerJob> {
  pin: number | null;
  scheduler: Scheduler<V>;
  /** The lane's server index → the run's server index. */
  server(i: number): number;
}

export class RequestRunner<V extends RunnerJob, B> {
  readonly channel: RequestChannel<B>;
  private readonly stopCtl = new AbortController();
  private readonly lanes: Lane<V>[] = [];
  private readonly up: boolean[];
  private started = false;
  private stopWhy: string | null = null;

  constructor(
    private readonly control: RunControl,
    private readonly servers: RequestServers<B>,
    private readonly work: RequestWork<V, B>,
    private readonly options: RunnerOptions,
  ) {
    if (options.slots.length !== servers.urls.length) throw new Error(`internal: ${options.slots.length} slots for ${servers.urls.length} servers`);
    this.up = servers.urls.map(() => true);
    // Every request in flight listens on the stop signals: the default cap of 10 would warn at a large batch.
    const inFlight = options.slots.reduce((s, x) => s + x.capacity, 0) + 16;
    for (const s of [this.stopCtl.signal, control.cutSignal, control.stopper?.cutSignal]) if (s) setMaxListeners(inFlight, s);
    // A cut ends dispatch too: a cut request goes back (it is no failure) and must not be sent again.
    for (const s of [control.cutSignal, control.stopper?.cutSignal]) s?.addEventListener('abort', () => this.halt(), { once: true });
    this.channel = new RequestChannel<B>(servers.senders, servers.urls, {
      upSignal: (i) => {
        const s = servers.upSignal?.(i);
        if (s) setMaxListeners(inFlight, s);
        return s;
      },
      cutSignal: control.cutSignal ?? control.stopper?.cutSignal,
      stopper: control.stopper,
      drain: control.drain,
      stopSignal: this.stopCtl.signal,
      monitor: options.monitor,
      contextTokens: options.contextTokens,
      maxRequeues: options.maxRequeues,
      policy: options.policy,
      reach: options.reach,
      stop: (why) => this.stop(why),
    });
  }

  /** Why the run's requests were stopped (a 'stop' verdict, or stop()), or null. */
  get stopped(): string | null {
    return this.stopWhy;
  }

  /** Ends the run's requests: no new one is sent, in-flight ones are cut (no failure recorded for them). */
  stop(why: string): void {
    if (this.stopWhy !== null) return;
    this.stopWhy = why;
    this.stopCtl.abort(new Error(`requests stopped: ${why}`));
    this.halt();
  }

  /** No new request on any lane (in-flight ones end as they will). */
  private halt(): void {
    for (const l of this.lanes) l.scheduler.drain();
  }

  private get halted(): boolean {
    return this.stopWhy !== null || this.control.cutSignal?.aborted === true || this.control.stopper?.cutSignal?.aborted === true;
  }

  /** A server became able (or unable) to take requests: its unpinned work moves, its lane waits. */
  setServerUp(index: number, up: boolean): void {
    this.up[index] = up;
    for (const l of this.lanes) {
      if (l.pin === null) l.scheduler.setServerUp(index, up);
      else if (l.pin === index) l.scheduler.setServerUp(0, up);
    }
  }

  /** Follows a launcher's fleet: a server that leaves 'up' takes no work until it is back. */
  follow(fleet: Pick<Fleet, 'on'>): void {
    fleet.on('state', (e) => {
      const i = this.servers.urls.indexOf(e.url);
      if (i >= 0) this.setServerUp(i, e.state === 'up');
    });
  }

  /** Runs every job; resolves when all have finished, or once drained or stopped; rejects when a hook threw. */
  async run(jobs: Iterable<V>): Promise<void> {
    if (this.started) throw new Error('internal: a request runner runs once');
    this.started = true;
    const shared: V[] = [];
    const pinned = new Map<number, V[]>();
    for (const job of jobs) {
      if (job.pin === undefined) shared.push(job);
      else if (!(job.pin >= 0 && job.pin < this.servers.urls.length))
        throw new Error(`internal: job ${job.key} pinned to server ${job.pin} of ${this.servers.urls.length}`);
      else pinned.set(job.pin, [...(pinned.get(job.pin) ?? []), job]);
    }
    const work: [Lane<V>, V[]][] = [];
    if (shared.length > 0 || pinned.size === 0) work.push([this.lane(null), shared]);
    for (const [pin, list] of [...pinned].sort((a, b) => a[0] - b[0])) work.push([this.lane(pin), list]);
    const fleet = this.options.fleet;
    if (fleet) {
      this.follow(fleet);
      fleet.handles.forEach((h, i) => {
        if (h.state !== 'up') this.setServerUp(i, false);
      });
    }
    // Before any lane starts: a stop asked for already sends nothing.
    this.control.drain?.onDrain(() => this.halt());
    if (this.halted) this.halt();
    const runs = work.map(([lane, list]) => lane.scheduler.run(list));
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private lane(pin: number | null): Lane<V> {
    const indices = pin === null ? this.servers.urls.map((_, i) => i) : [pin];
    const slots = indices.map((i) => ({ endpoint: this.servers.urls[i], ...this.options.slots[i] }));
    const capacity = slots.reduce((s, x) => s + x.capacity, 0);
    const shared = this.channel;
    // The channel as this lane's tasks see it: a pinned lane's failures are never sent to another server.
    const channel: TaskChannel<B> = {
      send: (i, body) => shared.send(i, body),
      answered: (i) => shared.answered(i),
      judge: (i, res, requeues, expected) => shared.judge(i, res, requeues, expected, pin !== null),
      get cut() {
        return shared.cut;
      },
    };
    const server = (i: number) => indices[i];
    const prepare = this.work.prepare?.bind(this.work);
    const scheduler = new Scheduler<V>(
      {
        servers: slots,
        prefetch: this.options.prefetch ?? Math.max(2, 2 * capacity),
        prepConcurrency: this.options.prepConcurrency ?? Math.max(1, capacity),
        maxOpenVideos: this.options.maxOpenVideos,
        warmVideos: this.options.warmVideos,
      },
      {
        prepare: prepare ?? (() => Promise.resolve(true)),
        execute: (task, job, info, requeues) =>
          this.work.execute(task, job, { ...info, index: server(info.index), endpoint: this.servers.urls[server(info.index)] }, requeues, channel),
        videoFinished: this.work.jobFinished ? (job) => this.work.jobFinished!(job) : undefined,
        onFatal: (err) => {
          // One lane's broken hook ends every lane (their run() resolves once drained; run() then rejects).
          this.halt();
          this.work.onFatal?.(err);
        },
      },
    );
    indices.forEach((g, i) => {
      if (!this.up[g]) scheduler.setServerUp(i, false);
    });
    const lane = { pin, scheduler, server };
    this.lanes.push(lane);
    return lane;
  }

  /** The shared queue's and every lane's figures together. */
  stats(): SchedulerStats {
    const all = this.lanes.map((l) => ({ l, s: l.scheduler.stats() }));
    return {
      inFlight: all.reduce((a, x) => a + x.s.inFlight, 0),
      preparing: all.reduce((a, x) => a + x.s.preparing, 0),
      ready: all.reduce((a, x) => a + x.s.ready, 0),
      servers: all.flatMap(({ l, s }) => s.servers.map((sv) => ({ ...sv, index: l.server(sv.index) }))),
    };
  }

  /** Each server's time accounts (summed over the shared queue and its lane). */
  timeAccounts(): ServerTimeAccount[] {
    const out: ServerTimeAccount[] = this.servers.urls.map(() => ({ slotWaitS: 0, framesWaitS: 0, inFlightS: 0 }));
    for (const l of this.lanes) {
      l.scheduler.timeAccounts().forEach((a, i) => {
        const o = out[l.server(i)];
        o.slotWaitS += a.slotWaitS;
        o.framesWaitS += a.framesWaitS;
        o.inFlightS += a.inFlightS;
      });
    }
    return out;
  }
}

/** Runs `jobs` through a new runner over `servers`; the runner is returned for its figures. */
export async function runRequests<V extends RunnerJob, B>(
  control: RunControl,
  servers: RequestServers<B>,
  jobs: Iterable<V>,
  work: RequestWork<V, B>,
  options: RunnerOptions,
): Promise<RequestRunner<V, B>> {
  const runner = new RequestRunner(control, servers, work, options);
  await runner.run(jobs);
  return runner;
}
