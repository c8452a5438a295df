// The request runner's scheduler (runner/requestRunner.ts), independent of HTTP and of what a run type prepares
// (Frames × Pixels plugs in frames and its videos as jobs; bench/sweep.ts plugs in simulations). What it does and why:
//  - Preparation runs ahead of the servers: up to `prefetch` jobs prepared and waiting, `prepConcurrency`
//    being prepared at once (FP: the decode pool's size).
//  - Affinity: a server pulls a whole prepared job and sends all of that job's requests itself, so its prefix
//    cache serves what the requests share (FP: a video's frames). Within a job, the requests of one group
//    (FP: a condition — identical frames, different question) run back to back: the group's first request goes
//    alone, the rest follow once it has finished, when the shared prefix is in the cache.
//  - Every server is kept at its concurrency: work is pulled, so a slow server simply takes less.
//  - Largest first: a server pulls the prepared job with the largest remaining cost (FP: predicted prompt
//    tokens), and within a job the costliest groups go first — the tail is short. The order jobs come in is the
//    run type's (FP: protocols/fp/sweep/videoOrder.ts).
//  - Followers hit the prefix cache and bring the GPU almost no work: a server keeps at least
//    MIN_LEADERS_IN_FLIGHT groups' first requests in flight (pulling a job for one if need be) and
//    never lets followers fill its last LEADER_SLOTS slots, so its GPU does not run dry behind a wall
//    of followers.
//  - An idle server with nothing left to pull takes a not-yet-started group from a busy server's
//    backlog (tail stealing); affinity only costs cache there, never time. In the tail each server
//    holds its first requests back to MIN_LEADERS_IN_FLIGHT so they stay there to be taken.
//  - A server reported down: its open jobs go back to the pool (their undispatched requests), its
//    in-flight requests come back as `requeue` and go to another server; when it is up again it pulls.
//  - Options that keep vLLM's front end off the critical path (issue 17; each changes order only):
//    `warmVideos` holds a job's other requests until its first one has finished, so the images they
//    share are in the server's processor cache (and prefix cache) before they are sent; `maxOpenVideos`
//    bounds the jobs a server has open, so their images fit that cache; a server's `tokenBudget` caps
//    the predicted cost it has in flight (its KV cache), next to the request count.
export interface SchedTask {
  /** Unique per task (benchmark, item, condition). */
  key: string;
  /** Requests of one group share their prefix (FP: the same frames — same video, same condition). */
  group: string;
  /** Relative cost (predicted prompt tokens): larger first. */
  cost: number;
}

export interface SchedJob {
  key: string;
  tasks: SchedTask[];
}

export type TaskOutcome = 'done' | 'requeue';

/**
 * A server with fewer groups' first requests in flight than this takes a first request (from its open
 * videos, else a newly pulled video) before any follower: followers find their frames in the prefix
 * cache and bring the GPU almost no work, so slots full of followers would leave it idle.
 * 4, not 2: a first request's prefill is done well before the request is (its answer's decode steps
 * cost the GPU little), so with 2 the GPU ran dry between prefills. Under vLLM V1's admission-order
 * prefill (stand-in `shared=2`) that left ~0.8 s idle per server mid-run (bench `--prep-ms 3
 * --workers 16 --shared 2`: makespan/LB 1.17 with 2, 1.05–1.06 with 4; the default model unchanged
 * within noise). In the tail it is also the number of first requests a server holds back to.
 */
const MIN_LEADERS_IN_FLIGHT = 4;

/** Slots a server never lets followers fill (kept for first requests), when its capacity is > 2× this. */
const LEADER_SLOTS = 2;

export interface SchedServerInfo {
  index: number;
  endpoint: string;
  capacity: number;
}

export interface SchedulerHooks<V extends SchedJob> {
  /** Preparation (FP: frames); false when the job failed as a whole (the hook logged its tasks' failures). */
  prepare(video: V): Promise<boolean>;
  /** Sends one request and records its outcome; `requeue` when the server went away mid-request. */
  execute(task: SchedTask, video: V, server: SchedServerInfo, requeues: number): Promise<TaskOutcome>;
  /** Every task of the video has finished (frames can be released). */
  videoFinished?(video: V): void;
  /** A hook threw: the run cannot go on safely. */
  onFatal?(err: unknown): void;
}

export interface SchedulerOptions {
  /** capacity: requests in flight; tokenBudget: predicted prompt tokens in flight (one request may always go). */
  servers: { endpoint: string; capacity: number; tokenBudget?: number }[];
  /** Prepared jobs waiting for a server (plus those being prepared). */
  prefetch: number;
  prepConcurrency: number;
  /** Gate a group's followers behind its first request (prefix-cache warm-up). Default true. */
  warmGroups?: boolean;
  /** Gate a video's other requests behind its first request (processor-cache warm-up). Default false. */
  warmVideos?: boolean;
  /** Most videos open on one server at once (a server at the bound pulls no more). Default: no bound. */
  maxOpenVideos?: number;
  /** Milliseconds, for the time accounts (default performance.now). */
  clock?: () => number;
}

/**
 * Where a server's time went on our side, summed since the scheduler started: what the bottleneck verdict
 * reads (runner/bottleneck.ts). Each state holds from one pump to the next (every change pumps).
 */
export interface ServerTimeAccount {
  /** Seconds with work ready for the server (a prepared video or its open videos' requests) but every slot taken. */
  slotWaitS: number;
  /** Seconds with a free slot, nothing prepared to send and jobs being prepared: waiting on our preparation (FP: frames). */
  framesWaitS: number;
  /** ∫ requests in flight dt. */
  inFlightS: number;
}

interface GroupState {
  name: string;
  pending: SchedTask[];
  started: boolean;
  leaderDone: boolean;
  cost: number;
}

interface VideoState<V extends SchedJob> {
  video: V;
  groups: GroupState[];
  inflight: number;
  server: number | null;
  remainingCost: number;
  finished: boolean;
  /** A stolen group's own state points at the video it was taken from (which finishes after it); null otherwise. */
  parent: VideoState<V> | null;
  /** warmVideos: the video's first request is in flight (held: nothing else of the video goes). */
  warming: boolean;
  /** warmVideos: the video's first request has finished (or the gate does not apply). */
  warmed: boolean;
}

/** A server as the scheduler keeps it. */
interface ServerSlot<V extends SchedJob> extends SchedServerInfo {
  up: boolean;
  lastPull: number;
  inflight: number;
  /** Predicted prompt tokens in flight (SchedTask.cost), against tokenBudget. */
  inflightCost: number;
  tokenBudget: number;
  /** Groups' first requests in flight: the ones that bring prefill work (followers hit the cache). */
  leaders: number;
  open: VideoState<V>[];
}

/** A task picked for a server, with its group and the video state it comes from. */
interface Picked<V extends SchedJob> {
  task: SchedTask;
  group: GroupState;
  video: VideoState<V>;
}

export interface SchedulerStats {
  inFlight: number;
  preparing: number;
  ready: number;
  servers: { index: number; endpoint: string; up: boolean; inflight: number; openVideos: number }[];
}

export class Scheduler<V extends SchedJob> {
  private readonly servers: ServerSlot<V>[];
  private readonly ready: VideoState<V>[] = [];
  private readonly requeues = new Map<string, number>();
  private source: Iterator<V> | null = null;
  private sourceDone = false;
  private preparing = 0;
  private inflightTotal = 0;
  private draining = false;
  private fatal: unknown = null;
  private pulls = 0;
  private resolveDone: (() => void) | null = null;
  private rejectDone: ((e: unknown) => void) | null = null;
  private readonly clock: () => number;
  private accountedAt: number;
  private readonly accounts: ServerTimeAccount[];
  /** Each server's state since the last pump: in flight, slots full with work waiting, a free slot waiting on frames. */
  private held: { inflight: number; slotWait: boolean; framesWait: boolean }[];

  constructor(
    private readonly opts: SchedulerOptions,
    private readonly hooks: SchedulerHooks<V>,
  ) {
    this.servers = opts.servers.map((s, index) => ({
      index,
      endpoint: s.endpoint,
      capacity: s.capacity,
      tokenBudget: s.tokenBudget ?? Infinity,
      up: true,
      lastPull: 0,
      inflight: 0,
      inflightCost: 0,
      leaders: 0,
      open: [],
    }));
    this.clock = opts.clock ?? (() => performance.now());
    this.accountedAt = this.clock();
    this.accounts = this.servers.map(() => ({ slotWaitS: 0, framesWaitS: 0, inFlightS: 0 }));
    this.held = this.servers.map(() => ({ inflight: 0, slotWait: false, framesWait: false }));
  }

  /** Each server's time accounts up to now. */
  timeAccounts(): ServerTimeAccount[] {
    this.account();
    return this.accounts.map((a) => ({ ...a }));
  }

  /** Adds the time since the last account to each server's accounts, in the state it held. */
  private account(): void {
    const now = this.clock();
    const dt = (now - this.accountedAt) / 1000;
    this.accountedAt = now;
    if (!(dt > 0)) return;
    this.held.forEach((h, i) => {
      const a = this.accounts[i];
      a.inFlightS += h.inflight * dt;
      if (h.slotWait) a.slotWaitS += dt;
      if (h.framesWait) a.framesWaitS += dt;
    });
  }

  /** The state each server holds until the next pump. */
  private hold(): void {
    const framesComing = this.ready.length === 0 && this.preparing > 0;
    this.held = this.servers.map((s) => {
      const full = s.inflight >= s.capacity;
      const workWaiting = this.ready.length > 0 || s.open.some((v) => this.hasPending(v));
      return { inflight: s.inflight, slotWait: s.up && full && workWaiting, framesWait: s.up && !full && framesComing };
    });
  }

  /** Runs every video; resolves when all are finished, or when drained after drain(). */
  run(videos: Iterable<V>): Promise<void> {
    this.source = videos[Symbol.iterator]();
    return new Promise<void>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
      this.pump();
    });
  }

  /** Stop taking new work; in-flight requests finish and are recorded; run() then resolves. */
  drain(): void {
    this.draining = true;
    this.pump();
  }

  setServerUp(index: number, up: boolean): void {
    const s = this.servers[index];
    if (!s || s.up === up) return;
    s.up = up;
    if (!up) {
      // Its videos go back to the pool with what has not been sent; in-flight ones come back as requeue.
      for (const v of s.open) {
        v.server = null;
        if (!v.finished && this.hasPending(v)) this.ready.push(v);
      }
      s.open = [];
    }
    this.pump();
  }

  stats(): SchedulerStats {
    return {
      inFlight: this.inflightTotal,
      preparing: this.preparing,
      ready: this.ready.length,
      servers: this.servers.map((s) => ({ index: s.index, endpoint: s.endpoint, up: s.up, inflight: s.inflight, openVideos: s.open.length })),
    };
  }

  private hasPending(v: VideoState<V>): boolean {
    return v.groups.some((g) => g.pending.length > 0);
  }

  private makeState(video: V): VideoState<V> {
    const byGroup = new Map<string, GroupState>();
    for (const t of video.tasks) {
      let g = byGroup.get(t.group);
      if (!g) byGroup.set(t.group, (g = { name: t.group, pending: [], started: false, leaderDone: false, cost: 0 }));
      g.pending.push(t);
      g.cost += t.cost;
    }
    const groups = [...byGroup.values()];
    for (const g of groups) g.pending.sort((a, b) => b.cost - a.cost);
    groups.sort((a, b) => b.cost - a.cost);
    const warmed = this.opts.warmVideos !== true;
    return {
      video,
      groups,
      inflight: 0,
      server: null,
      remainingCost: groups.reduce((s, g) => s + g.cost, 0),
      finished: false,
      parent: null,
      warming: false,
      warmed,
    };
  }

  private fail(err: unknown): void {
    if (this.fatal) return;
    this.fatal = err;
    this.draining = true;
    this.hooks.onFatal?.(err);
    this.pump();
  }

  private startPreps(): void {
    // No source before run(): a server marked down at hand-over pumps before there is anything to prepare.
    while (
      this.source !== null &&
      !this.draining &&
      !this.sourceDone &&
      this.preparing < this.opts.prepConcurrency &&
      this.preparing + this.ready.length < this.opts.prefetch
    ) {
      const next = this.source.next();
      if (next.done) {
        this.sourceDone = true;
        break;
      }
      const video = next.value;
      if (video.tasks.length === 0) continue;
      this.preparing++;
      this.hooks.prepare(video).then(
        (ok) => {
          this.preparing--;
          if (ok) this.ready.push(this.makeState(video));
          else this.hooks.videoFinished?.(video);
          this.pump();
        },
        (err) => {
          this.preparing--;
          this.fail(err);
        },
      );
    }
  }

  /** Next dispatchable task of a video, honouring the group warm-up gate. */
  private nextTask(v: VideoState<V>, leaders = true): { task: SchedTask; group: GroupState } | null {
    if (v.warming) return null;
    const warm = this.opts.warmGroups !== false;
    for (const g of v.groups) {
      if (g.pending.length === 0 || (!leaders && !g.started)) continue;
      if (!g.started || g.leaderDone || !warm) return { task: g.pending.shift()!, group: g };
    }
    return null;
  }

  /** A group's first request for this server: from its open videos, else from a newly pulled video. */
  private nextLeader(s: ServerSlot<V>): Picked<V> | null {
    for (const v of s.open) {
      if (v.warming) continue;
      const g = v.groups.find((x) => !x.started && x.pending.length > 0);
      if (g) return { task: g.pending.shift()!, group: g, video: v };
    }
    return this.pullFor(s);
  }

  /** Opens the best prepared video on server `s` and returns its next task (null: none ready). */
  private pullFor(s: ServerSlot<V>): Picked<V> | null {
    if (this.opts.maxOpenVideos !== undefined && s.open.length >= this.opts.maxOpenVideos) return null;
    const v = this.pullReady();
    if (!v) return null;
    s.lastPull = ++this.pulls;
    v.server = s.index;
    s.open.push(v);
    const n = this.nextTask(v);
    return n ? { ...n, video: v } : null;
  }

  private pullReady(): VideoState<V> | null {
    if (this.ready.length === 0) return null;
    let best = 0;
    for (let i = 1; i < this.ready.length; i++) if (this.ready[i].remainingCost > this.ready[best].remainingCost) best = i;
    return this.ready.splice(best, 1)[0];
  }

  /** Nothing left to prepare or pull: what is open on the servers is the rest of the run. */
  private inTail(): boolean {
    return this.sourceDone && this.ready.length === 0 && this.preparing === 0;
  }

  /**
   * Tail stealing: a not-yet-started group from a server whose backlog it cannot start now — at
   * capacity, or in the tail, where each server holds its groups' first requests back to
   * MIN_LEADERS_IN_FLIGHT so that a server running dry can take them instead of idling while the
   * other works through a queue of prefills.
   */
  private steal(thief: ServerSlot<V>): Picked<V> | null {
    let found: { group: GroupState; video: VideoState<V> } | null = null;
    for (const s of this.servers) {
      if (s === thief || (s.inflight < s.capacity && !this.inTail())) continue;
      for (const v of s.open) {
        for (const g of v.groups) {
          if (!g.started && g.pending.length > 0 && (!found || g.cost > found.group.cost)) found = { group: g, video: v };
        }
      }
    }
    if (!found) return null;
    // The stolen group becomes its own video state on the thief (the rest of the video stays put).
    const { group, video } = found;
    video.groups = video.groups.filter((g) => g !== group);
    video.remainingCost -= group.cost;
    const moved: VideoState<V> = {
      video: video.video,
      groups: [group],
      inflight: 0,
      server: thief.index,
      remainingCost: group.cost,
      finished: false,
      parent: video,
      warming: false,
      warmed: true,
    };
    thief.open.push(moved);
    const task = group.pending.shift()!;
    return { task, group, video: moved };
  }

  private dispatch(server: ServerSlot<V>, v: VideoState<V>, task: SchedTask, group: GroupState): void {
    const isLeader = !group.started;
    const warmsVideo = !v.warmed;
    if (warmsVideo) v.warming = true;
    server.inflightCost += task.cost;
    group.started = true;
    group.cost -= task.cost;
    v.remainingCost -= task.cost;
    v.inflight++;
    server.inflight++;
    if (isLeader) server.leaders++;
    this.inflightTotal++;
    const info: SchedServerInfo = { index: server.index, endpoint: server.endpoint, capacity: server.capacity };
    const requeues = this.requeues.get(task.key) ?? 0;
    this.hooks.execute(task, v.video, info, requeues).then(
      (outcome) => this.settle(server, v, task, group, isLeader, outcome, warmsVideo),
      (err) => {
        // Failed first: settling the last task in flight ends the run, which must then reject, not resolve.
        this.fail(err);
        this.settle(server, v, task, group, isLeader, 'done', warmsVideo);
      },
    );
  }

  private settle(
    server: ServerSlot<V>,
    v: VideoState<V>,
    task: SchedTask,
    group: GroupState,
    isLeader: boolean,
    outcome: TaskOutcome,
    warmsVideo = false,
  ): void {
    v.inflight--;
    server.inflight--;
    server.inflightCost -= task.cost;
    if (warmsVideo) {
      v.warming = false;
      v.warmed = outcome !== 'requeue';
    }
    if (isLeader) server.leaders--;
    this.inflightTotal--;
    if (outcome === 'requeue') {
      this.requeues.set(task.key, (this.requeues.get(task.key) ?? 0) + 1);
      group.pending.unshift(task);
      group.cost += task.cost;
      v.remainingCost += task.cost;
      if (isLeader) group.started = false;
      // Its server is gone (or going): the video returns to the pool unless it already did.
      if (v.server === server.index && !server.up) v.server = null;
      if (v.server === null && !this.ready.includes(v)) this.ready.push(v);
    } else if (isLeader) {
      group.leaderDone = true;
    }
    this.maybeFinish(v);
    this.pump();
  }

  private maybeFinish(v: VideoState<V>): void {
    if (v.finished || v.inflight > 0 || this.hasPending(v)) return;
    const parent = v.parent;
    v.finished = true;
    if (v.server !== null) {
      const s = this.servers[v.server];
      s.open = s.open.filter((x) => x !== v);
    }
    const ri = this.ready.indexOf(v);
    if (ri >= 0) this.ready.splice(ri, 1);
    if (parent) {
      this.maybeFinish(parent);
      return;
    }
    // A video whose groups were stolen finishes when the stolen parts have finished too.
    if (this.children(v).some((c) => !c.finished)) {
      v.finished = false;
      return;
    }
    this.hooks.videoFinished?.(v.video);
  }

  private children(v: VideoState<V>): VideoState<V>[] {
    const out: VideoState<V>[] = [];
    for (const s of this.servers) for (const o of s.open) if (o.parent === v) out.push(o);
    for (const o of this.ready) if (o.parent === v) out.push(o);
    return out;
  }

  private pumping = false;
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    this.account();
    try {
      this.startPreps();
      if (!this.draining) this.fillServers();
      this.startPreps();
    } finally {
      this.pumping = false;
      this.hold();
    }
    const idle = this.inflightTotal === 0 && this.preparing === 0;
    if (idle && (this.draining || (this.sourceDone && this.ready.length === 0 && this.servers.every((s) => s.open.length === 0)))) {
      const resolve = this.resolveDone;
      const reject = this.rejectDone;
      this.resolveDone = this.rejectDone = null;
      if (this.fatal) reject?.(this.fatal);
      else resolve?.();
    }
    // Idle with work ready but every server down: nothing to do here; setServerUp pumps again
    // (the launcher restarts them or the run stops).
  }

  private fillServers(): void {
    let progress = true;
    while (progress) {
      progress = false;
      // Least-loaded first, so a pulled video goes to the server with the most room.
      // Ties (idle servers while frames are the bottleneck) go to the server that pulled least recently.
      const order = this.servers
        .filter((s) => s.up && s.inflight < s.capacity)
        .sort((a, b) => a.inflight / a.capacity - b.inflight / b.capacity || a.lastPull - b.lastPull);
      for (const s of order) {
        if (s.inflight >= s.capacity) continue;
        let picked: Picked<V> | null = null;
        if (s.leaders < MIN_LEADERS_IN_FLIGHT) picked = this.nextLeader(s);
        const holdLeaders = this.inTail() && s.leaders >= MIN_LEADERS_IN_FLIGHT && this.servers.filter((x) => x.up).length > 1;
        // The last LEADER_SLOTS slots are kept for first requests: never all followers.
        const followersFull = s.capacity > 2 * LEADER_SLOTS && s.inflight - s.leaders >= s.capacity - LEADER_SLOTS;
        for (const v of s.open) {
          if (picked || followersFull) break;
          const n = this.nextTask(v, !holdLeaders);
          if (n) {
            picked = { ...n, video: v };
            break;
          }
        }
        if (!picked) picked = this.pullFor(s);
        if (!picked && this.inTail() && !holdLeaders) picked = this.steal(s);
        if (picked && s.inflight > 0 && s.inflightCost + picked.task.cost > s.tokenBudget) {
          // Over the server's KV budget: the task goes back to the front of its group; the server waits.
          picked.group.pending.unshift(picked.task);
          picked = null;
        }
        if (picked) {
          this.dispatch(s, picked.video, picked.task, picked.group);
          progress = true;
        }
      }
    }
  }
}
