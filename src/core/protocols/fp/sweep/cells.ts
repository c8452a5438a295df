// Per benchmark × condition accounting for the status file and p1_timing.jsonl. A cell's timing line is
// written when the last unit of that cell in this run is resolved (row written or failure logged).
import { isFailedBefore } from '../package/failedBefore';
import { unitKey } from '../package/unitKey';
import type { WorkPlan, WorkUnit } from '../plan/types';
import type { FailureKind, TimingRecord } from '../package/schemas';
import type { CellProgress } from '../status/statusSchema';

export interface Cell {
  benchmark: string;
  condition: string;
  total: number;
  /** Rows in the CSV (at start + written this run). */
  done: number;
  /** Units of this run not yet resolved. */
  pending: number;
  na: number;
  reuse: number;
  failed: number;
  noVideo: number;
  /** Unresolved units of this run that failed in an earlier one (a subset of `pending`). */
  failedBefore: number;
  /** Predicted prompt tokens of the unresolved requests (todo units): what the ETA measures. */
  remainingTokens: number;
  // timing (this run)
  infer: number;
  infer_s: number;
  decode_s: number;
  prompt_tokens: number;
  naWritten: number;
  reuseWritten: number;
  firstAt: number | null;
  timingWritten: boolean;
}

/** A cell with nothing counted yet. */
function emptyCell(benchmark: string, condition: string): Cell {
  return {
    benchmark,
    condition,
    total: 0,
    done: 0,
    pending: 0,
    na: 0,
    reuse: 0,
    failed: 0,
    noVideo: 0,
    failedBefore: 0,
    remainingTokens: 0,
    infer: 0,
    infer_s: 0,
    decode_s: 0,
    prompt_tokens: 0,
    naWritten: 0,
    reuseWritten: 0,
    firstAt: null,
    timingWritten: false,
  };
}

export class CellBook {
  readonly cells = new Map<string, Cell>();
  /** unitKey()s of the pending units that failed before (failedKeys ∩ todo/reuse units), until resolved. */
  private readonly retrying = new Set<string>();
  /**
   * `failedKeys`: unitKey()s with a line in failures.jsonl. A todo or reuse unit among them counts as
   * `failedBefore` until it is resolved, as the dry run counts it, so the live view and the artifact view agree.
   */
  constructor(
    plan: WorkPlan,
    itemCounts: Map<string, number>,
    private readonly startedAt = Date.now(),
    failedKeys: ReadonlySet<string> = new Set(),
  ) {
    for (const b of plan.benchmarks) {
      for (const c of plan.conditions) {
        const n = plan.counts.get(b)?.get(c);
        this.cells.set(key(b, c), {
          ...emptyCell(b, c),
          total: itemCounts.get(b) ?? 0,
          done: n?.done ?? 0,
          na: n?.NA ?? 0,
          reuse: n?.reuse ?? 0,
        });
      }
    }
    for (const u of plan.units) {
      const c = this.of(u);
      c.pending++;
      c.remainingTokens += tokensOf(u);
      if (isFailedBefore(u, failedKeys)) {
        this.retrying.add(unitKey(u.benchmark, u.item.item_id, u.condition));
        c.failedBefore++;
      }
    }
  }

  /** A unit is resolved (row written or failure logged): it no longer counts as failed before. */
  private resolved(u: WorkUnit, c: Cell): void {
    c.remainingTokens = Math.max(0, c.remainingTokens - tokensOf(u));
    if (this.retrying.size === 0) return; // the usual case: no key to build per row
    if (this.retrying.delete(unitKey(u.benchmark, u.item.item_id, u.condition))) c.failedBefore--;
  }

  of(u: Pick<WorkUnit, 'benchmark' | 'condition'>): Cell {
    let c = this.cells.get(key(u.benchmark, u.condition));
    if (!c) {
      // v_32 added for reuse rows only (the plan lists it among its conditions too, but be safe)
      c = emptyCell(u.benchmark, u.condition);
      this.cells.set(key(u.benchmark, u.condition), c);
    }
    return c;
  }

  private touch(c: Cell): void {
    if (c.firstAt === null) c.firstAt = Date.now();
  }

  /** A row was written. Returns the cell's timing record when this resolved its last unit. */
  rowWritten(u: WorkUnit, status: 'ok' | 'NA' | 'reuse', t?: { latency_s: number; decode_s: number; prompt_tokens: number }): TimingRecord | null {
    const c = this.of(u);
    this.touch(c);
    this.resolved(u, c);
    c.done++;
    c.pending--;
    if (status === 'ok' && t) {
      c.infer++;
      c.infer_s += t.latency_s;
      c.decode_s += t.decode_s;
      c.prompt_tokens += t.prompt_tokens;
    } else if (status === 'NA') c.naWritten++;
    else if (status === 'reuse') c.reuseWritten++;
    return this.maybeTiming(c);
  }

  failed(u: WorkUnit, kind: FailureKind, decode_s = 0): TimingRecord | null {
    const c = this.of(u);
    this.touch(c);
    this.resolved(u, c);
    c.pending--;
    c.decode_s += decode_s;
    // No video in the package is expected (the seed's origin-side failures); a bad meta.json is a fault.
    if (kind === 'no_video') c.noVideo++;
    else c.failed++;
    return this.maybeTiming(c);
  }

  private maybeTiming(c: Cell): TimingRecord | null {
    if (c.pending > 0 || c.timingWritten) return null;
    c.timingWritten = true;
    return {
      benchmark: c.benchmark,
      condition: c.condition,
      infer: c.infer,
      infer_s: round(c.infer_s),
      decode_s: round(c.decode_s),
      prompt_tokens: c.prompt_tokens,
      na: c.naWritten,
      reuse: c.reuseWritten,
      failed: c.failed + c.noVideo,
      wall_s: round((Date.now() - (c.firstAt ?? this.startedAt)) / 1000),
    };
  }

  progress(): CellProgress[] {
    return [...this.cells.values()]
      .filter((c) => c.total > 0 || c.pending > 0)
      .map((c) => ({
        benchmark: c.benchmark,
        condition: c.condition,
        total: Math.max(c.total, c.done + c.pending + c.failed + c.noVideo),
        done: c.done,
        todo: c.pending,
        na: c.na,
        reuse: c.reuse,
        failed: c.failed,
        noVideo: c.noVideo,
        failedBefore: c.failedBefore,
        remainingTokens: c.remainingTokens,
      }));
  }
}

/** A todo unit's predicted prompt tokens (0 for units without a request, or without a prediction). */
function tokensOf(u: WorkUnit): number {
  return u.status === 'todo' && Number.isFinite(u.predictedPromptTokens) ? u.predictedPromptTokens! : 0;
}

function key(b: string, c: string): string {
  return `${b}\u0000${c}`;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
