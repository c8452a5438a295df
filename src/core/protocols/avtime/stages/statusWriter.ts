// Keeps avtime-status.json current: the run mutates one object, a timer writes it about once a second
// (tmp + rename, so a reader never sees half a file), and end() writes the final state at once.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { avtimeStatusSchema, type AvtimeStatus } from './statusSchema';
import { STAGES, type StageName } from './options';

export class AvtimeStatusWriter {
  readonly status: AvtimeStatus;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private seq = 0;

  constructor(
    readonly file: string,
    init: Pick<AvtimeStatus, 'runId' | 'outputRoot' | 'canonical'>,
  ) {
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

  stage(name: StageName): AvtimeStatus['stages'][number] {
    return this.status.stages.find((s) => s.name === name)!;
  }

  start(periodMs = 1000): void {
    void this.flush();
    this.timer = setInterval(() => void this.flush(), periodMs);
    this.timer.unref();
  }

  flush(): Promise<void> {
    this.writing = this.writing
      .then(async () => {
        this.status.updatedAt = new Date().toISOString();
        await fs.mkdir(path.dirname(this.file), { recursive: true });
        const tmp = `${this.file}.${process.pid}.${++this.seq}.tmp`;
        await fs.writeFile(tmp, JSON.stringify(avtimeStatusSchema.parse(this.status)) + '\n');
        await fs.rename(tmp, this.file);
      })
      .catch(() => undefined);
    return this.writing;
  }

  async end(state: 'done' | 'failed', summary: string): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.status.state = state;
    this.status.summary = summary;
    await this.flush();
  }
}

export async function readAvtimeStatus(file: string): Promise<AvtimeStatus | null> {
  try {
    const r = avtimeStatusSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
