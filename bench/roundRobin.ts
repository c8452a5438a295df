// The bench's baseline: no affinity. Videos are prepared ahead as the scheduler prepares them (up to
// `prefetch` waiting, `prepConcurrency` at once), then every request goes to the next server in turn
// that has a free slot, in plan order (within a video: costliest condition first). What the
// scheduler's affinity routing is measured against; the product never routes this way.
import type { SchedServerInfo, SchedTask, SchedulerStats, SchedJob, TaskOutcome } from '../src/core/runner/scheduler';

export interface RoundRobinOptions {
  servers: { endpoint: string; capacity: number }[];
  prefetch: number;
  prepConcurrency: number;
}

export interface RoundRobinHooks<V extends SchedJob> {
  prepare(video: V): Promise<boolean>;
  execute(task: SchedTask, video: V, server: SchedServerInfo, requeues: number): Promise<TaskOutcome>;
}

interface Prepared<V> {
  video: V;
  pending: SchedTask[];
  inflight: number;
}

export class RoundRobinDispatcher<V extends SchedJob> {
  private readonly servers: (SchedServerInfo & { inflight: number })[];
  private readonly ready: Prepared<V>[] = [];
  private source: Iterator<V> | null = null;
  private sourceDone = false;
  private preparing = 0;
  private inflight = 0;
  private next = 0;
  private fatal: unknown = null;
  private done: { resolve(): void; reject(e: unknown): void } | null = null;

  constructor(
    private readonly opts: RoundRobinOptions,
    private readonly hooks: RoundRobinHooks<V>,
  ) {
    this.servers = opts.servers.map((s, index) => ({ index, endpoint: s.endpoint, capacity: s.capacity, inflight: 0 }));
  }

  run(videos: Iterable<V>): Promise<void> {
    this.source = videos[Symbol.iterator]();
    return new Promise((resolve, reject) => {
      this.done = { resolve, reject };
      this.pump();
    });
  }

  stats(): SchedulerStats {
    return {
      inFlight: this.inflight,
      preparing: this.preparing,
      ready: this.ready.length,
      servers: this.servers.map((s) => ({ index: s.index, endpoint: s.endpoint, up: true, inflight: s.inflight, openVideos: 0 })),
    };
  }

  private pump(): void {
    while (!this.fatal && !this.sourceDone && this.preparing < this.opts.prepConcurrency && this.preparing + this.ready.length < this.opts.prefetch) {
      const n = this.source!.next();
      if (n.done) {
        this.sourceDone = true;
        break;
      }
      const video = n.value;
      if (video.tasks.length === 0) continue;
      this.preparing++;
      this.hooks.prepare(video).then(
        (ok) => {
          this.preparing--;
          if (ok) this.ready.push({ video, pending: costliestGroupsFirst(video.tasks), inflight: 0 });
          this.pump();
        },
        (err) => {
          this.preparing--;
          this.fatal ??= err;
          this.pump();
        },
      );
    }
    while (!this.fatal) {
      const v = this.ready.find((x) => x.pending.length > 0);
      const s = v ? this.nextServer() : null;
      if (!v || !s) break;
      this.dispatch(s, v, v.pending.shift()!);
    }
    if (this.inflight === 0 && this.preparing === 0 && (this.fatal || (this.sourceDone && this.ready.length === 0))) {
      const d = this.done;
      this.done = null;
      if (this.fatal) d?.reject(this.fatal);
      else d?.resolve();
    }
  }

  private nextServer(): (SchedServerInfo & { inflight: number }) | null {
    for (let k = 0; k < this.servers.length; k++) {
      const s = this.servers[(this.next + k) % this.servers.length];
      if (s.inflight < s.capacity) {
        this.next = (this.next + k + 1) % this.servers.length;
        return s;
      }
    }
    return null;
  }

  private dispatch(s: SchedServerInfo & { inflight: number }, v: Prepared<V>, task: SchedTask): void {
    s.inflight++;
    v.inflight++;
    this.inflight++;
    const settle = (outcome: TaskOutcome) => {
      s.inflight--;
      v.inflight--;
      this.inflight--;
      if (outcome === 'requeue') v.pending.unshift(task);
      if (v.inflight === 0 && v.pending.length === 0) this.ready.splice(this.ready.indexOf(v), 1);
      this.pump();
    };
    this.hooks.execute(task, v.video, { index: s.index, endpoint: s.endpoint, capacity: s.capacity }, 0).then(settle, (err) => {
      this.fatal ??= err;
      settle('done');
    });
  }
}

/** A video's tasks, costliest condition group first, costliest task first within a group (the scheduler's order). */
function costliestGroupsFirst(tasks: readonly SchedTask[]): SchedTask[] {
  const groups = new Map<string, { cost: number; tasks: SchedTask[] }>();
  for (const t of tasks) {
    const g = groups.get(t.group) ?? { cost: 0, tasks: [] };
    g.cost += t.cost;
    g.tasks.push(t);
    groups.set(t.group, g);
  }
  return [...groups.values()].sort((a, b) => b.cost - a.cost).flatMap((g) => g.tasks.sort((a, b) => b.cost - a.cost));
}
