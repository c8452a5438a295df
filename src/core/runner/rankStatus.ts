// What every data job's rank status file shares (the caption's, the cut's): who writes it, how far the rank's
// selection is, and why it stopped. A run type's status schema is these fields plus what it runs now; RankTally
// keeps the counts, the state and the closing summary a rank's job reaches.
import { z } from 'zod';
import type { RankShard } from '../clips/shard';
import type { RunSession } from './runSession';

const rankStateSchema = z.enum(['starting', 'running', 'stopped', 'done', 'failed']);
export type RankState = z.infer<typeof rankStateSchema>;

export const rankStatusFields = {
  runId: z.string(),
  pid: z.number().int(),
  state: rankStateSchema,
  /** 0-based rank and rank count; null when unsharded. */
  rank: z.number().int().nullable(),
  of: z.number().int().nullable(),
  selected: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  stopRequested: z.string().nullable(),
  summary: z.string().nullable(),
};
export type RankStatus = z.infer<z.ZodObject<typeof rankStatusFields>>;

/** A rank's videos as its job goes: `completed` starts at those done before this run. */
export class RankTally {
  state: RankState = 'starting';
  failed = 0;
  summary: string | null = null;

  constructor(
    /** The run type's name, the summary line's first word. */
    private readonly name: string,
    readonly selected: number,
    public completed: number,
  ) {}

  /** Past the start (servers, pre-flight): the videos go. */
  running(): void {
    this.state = 'running';
  }

  get pending(): number {
    return this.selected - this.completed - this.failed;
  }

  /** `<name>: N done, N failed, N pending (of N selected)`. */
  get countsLine(): string {
    return `${this.name}: ${this.completed} done, ${this.failed} failed, ${this.pending} pending (of ${this.selected} selected)`;
  }

  /** The run ended: done when nothing failed or is pending; stopped when only a stop left videos pending; else failed. */
  end(stopped: boolean): void {
    const pending = this.pending;
    this.state = this.failed > 0 || (pending > 0 && !stopped) ? 'failed' : pending > 0 ? 'stopped' : 'done';
    this.summary = this.countsLine;
  }

  /** The run broke off: failed, `why` above the counts. */
  breakOff(why: string): void {
    this.state = 'failed';
    this.summary = `${why}\n${this.countsLine}`;
  }

  /** The status file's shared fields now (`summary`: the status write's own, else the tally's). */
  fields(session: RunSession, shard: RankShard | null, summary: string | null): RankStatus {
    return {
      runId: session.runId,
      pid: process.pid,
      state: this.state,
      rank: shard ? shard.index - 1 : null,
      of: shard?.count ?? null,
      selected: this.selected,
      completed: this.completed,
      failed: this.failed,
      stopRequested: session.stopRequested,
      summary: summary ?? this.summary,
    };
  }
}
