// Where a Frames × Pixels unit's outcome goes: its row (raw record, then CSV) or its failure line, the
// cell's count and, when that was the cell's last unit, its timing line. A failed unit takes the reuse
// rows waiting on it down with it (SPEC §2.4: the source row must exist first).
import type { FailureKind, RawRecord, TimingRecord } from '../package/schemas';
import type { CellBook } from './cells';
import type { FailureLog, TimingLog } from './dataLogs';
import type { ResultsWriter } from './resultsWriter';
import type { WorkPlan, WorkUnit } from '../plan';
import { naRecord, reuseRecord } from './records';
import { failureSignature } from '../package/failedKeys';
import { unitKey } from '../package/unitKey';

export interface RowTiming {
  latency_s: number;
  decode_s: number;
  prompt_tokens: number;
}

function isoNow(): string {
  return new Date().toISOString();
}

export class FpOutcomes {
  constructor(
    private readonly plan: WorkPlan,
    private readonly out: {
      writer: ResultsWriter;
      failures: FailureLog;
      timing: TimingLog;
      book: CellBook;
      runId: string;
      /** failures.jsonl's lines as failureSignature: a unit without a video already logged so is not logged again. */
      loggedFailures?: ReadonlySet<string>;
    },
  ) {}

  private async writeTiming(t: TimingRecord | null): Promise<void> {
    if (t) await this.out.timing.write({ ...t, run_id: this.out.runId, complete: true });
  }

  async fail(u: WorkUnit, kind: FailureKind, message: string, endpoint: string | null, attempts: number, decodeS = 0): Promise<void> {
    const { failures, book } = this.out;
    await failures.write({ benchmark: u.benchmark, item_id: u.item.item_id, condition: u.condition, kind, message, endpoint, attempts, ts: isoNow() });
    await this.writeTiming(book.failed(u, kind, decodeS));
    for (const d of u.dependents ?? []) {
      await failures.write({
        benchmark: d.benchmark,
        item_id: d.item.item_id,
        condition: d.condition,
        kind,
        message: `reuses ${u.condition}, which failed: ${message}`,
        endpoint,
        attempts: 0,
        ts: isoNow(),
      });
      await this.writeTiming(book.failed(d, kind));
    }
  }

  async writeRow(u: WorkUnit, rec: RawRecord, t?: RowTiming): Promise<void> {
    await this.out.writer.write(rec);
    await this.writeTiming(this.out.book.rowWritten(u, rec.status, t));
  }

  /** NA rows, reuse rows of stored sources, and the units without a video: nothing to send for them. */
  async writeNoRequestRows(): Promise<void> {
    for (const u of this.plan.units) {
      if (u.status === 'NA') await this.writeRow(u, naRecord(u));
      else if (u.status === 'reuse' && u.reuse?.stored) {
        await this.writeRow(u, reuseRecord(u, u.reuse.fromCondition, u.reuse.stored.pred, u.reuse.stored.correct, null));
      } else if (u.status === 'no_video' || u.status === 'bad_meta') {
        // A fact of the package, not an attempt: logged once (a resumed or requeued run would log it again; issue 43).
        const message = u.message ?? u.status;
        if (this.out.loggedFailures?.has(failureSignature(unitKey(u.benchmark, u.item.item_id, u.condition), u.status, message))) {
          await this.writeTiming(this.out.book.failed(u, u.status));
        } else await this.fail(u, u.status, message, null, 0);
      }
    }
  }

  /** Cells left incomplete by a stop: their timing so far, marked partial (a resumed run adds the rest). */
  async writePartialTimings(now = Date.now()): Promise<void> {
    for (const c of this.out.book.cells.values()) {
      if (!c.timingWritten && c.firstAt !== null) {
        await this.out.timing.write({
          benchmark: c.benchmark,
          condition: c.condition,
          infer: c.infer,
          infer_s: Math.round(c.infer_s * 1000) / 1000,
          decode_s: Math.round(c.decode_s * 1000) / 1000,
          prompt_tokens: c.prompt_tokens,
          na: c.naWritten,
          reuse: c.reuseWritten,
          failed: c.failed + c.noVideo,
          wall_s: Math.round(((now - c.firstAt) / 1000) * 1000) / 1000,
          run_id: this.out.runId,
          complete: false,
        });
      }
    }
  }
}
