// What an AVTime run says in its status file (./statusSchema.ts), as the run goes: the stages mutate one
// object; the run session's StatusReporter writes a copy of it each second and at the milestones the run asks.
import { STAGES, type StageName } from './options';
import type { AvtimeStatus, AvtimeStageStatus } from './statusSchema';

/** What server `index` is, as the engine's unreachable rule sees it (ServerHealth.unreachableOf); null: it answers. */
export type ServerWait = (index: number) => { endpoint: string; since: number | null; message: string; rule: string } | null;

export class AvtimeRunStatus {
  readonly status: AvtimeStatus;
  /** While a stage's shards run under the unreachable rule: each write shows a running shard whose server is unreachable as waiting. */
  reach: ServerWait | null = null;
  /** While the judge runs under the rule: each write shows a running pass whose (one) judge server is unreachable as waiting. */
  judgeReach: ServerWait | null = null;

  constructor(init: Pick<AvtimeStatus, 'runId' | 'outputRoot' | 'canonical'>) {
    const now = new Date().toISOString();
    this.status = {
      kind: 'avtime',
      ...init,
      pid: process.pid,
      state: 'running',
      startedAt: now,
      updatedAt: now,
      stages: STAGES.map((name) => ({ name, state: 'todo', done: 0, todo: 0, failed: 0 })),
      shards: [],
      judgePasses: [],
      summary: null,
    };
  }

  stage(name: StageName): AvtimeStageStatus {
    return this.status.stages.find((s) => s.name === name)!;
  }

  /** The run has ended: its state and last line (every later write says the same). */
  end(state: 'done' | 'failed', summary: string): void {
    this.status.state = state;
    this.status.summary = summary;
  }

  /** The status as of now, for the reporter (a copy: a write in progress never sees a later change). */
  snapshot(): AvtimeStatus {
    const now = new Date();
    const s = structuredClone({ ...this.status, updatedAt: now.toISOString() });
    if (s.state !== 'running') return s;
    const wait = (x: { state: string; waiting?: unknown }, w: ReturnType<ServerWait>) => {
      if (x.state !== 'running' || !w) return;
      x.state = 'waiting';
      x.waiting = { endpoint: w.endpoint, since: new Date(w.since ?? now.getTime()).toISOString(), message: w.message, rule: w.rule };
    };
    const shardReach = this.reach;
    if (shardReach) for (const x of s.shards) wait(x, shardReach(x.shard));
    const judgeReach = this.judgeReach;
    if (judgeReach) for (const x of s.judgePasses) wait(x, judgeReach(0));
    return s;
  }
}
