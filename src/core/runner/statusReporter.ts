// A run's status file as the run goes: the run type says what a status is (`make`, checked by its schema);
// the reporter writes it atomically, one write at a time (the session's tick and the run's milestones both
// write), keeps the last one, and hands each to `onStatus` (a foreground run's progress display).
import { writeStatusAtomic, type StatusSchema } from './statusFile';

export class StatusReporter<S> {
  private current: S | null = null;
  private chain: Promise<void> = Promise.resolve();
  private summary: string | null = null;

  constructor(
    readonly root: string,
    readonly file: string,
    private readonly schema: StatusSchema<S>,
    private readonly make: (summary: string | null) => S,
    private readonly onStatus?: (s: S) => void,
  ) {}

  /** The last status written (null before the first). */
  get last(): S | null {
    return this.current;
  }

  /**
   * Writes the status now, after any write under way; `summary`: the run's last line, once it has ended. A
   * summary once given stays: a later tick's write (no summary) does not take it back.
   */
  write(summary: string | null = null): Promise<void> {
    return this.writeValue(() => {
      // Taken at its turn: a write queued before this one is built without it.
      if (summary !== null) this.summary = summary;
      return this.make(this.summary);
    });
  }

  /** Writes `change(last)` (e.g. the last status marked failed, when `make` can no longer run); nothing before the first write. */
  patch(change: (last: S) => S): Promise<void> {
    return this.writeValue(() => (this.current === null ? null : change(this.current)));
  }

  /** Resolves once every write asked for so far has finished (or failed). */
  settled(): Promise<void> {
    return this.chain;
  }

  private writeValue(value: () => S | null): Promise<void> {
    const next = this.chain.then(async () => {
      const v = value();
      if (v === null) return;
      await writeStatusAtomic(this.root, this.file, this.schema, v);
      this.current = v;
      this.onStatus?.(v);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}
