// What an AVTime run says in its status file (./statusSchema.ts), as the run goes: the stages mutate one
// object; the run session's StatusReporter writes a copy of it each second and at the milestones the run asks.
import { STAGES, type StageName } from './options';
import type { AvtimeStatus, AvtimeStageStatus } from './statusSchema';

export class AvtimeRunStatus {
  readonly status: AvtimeStatus;

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
    return structuredClone({ ...this.status, updatedAt: new Date().toISOString() });
  }
}
