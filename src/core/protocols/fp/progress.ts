// What the tree and the status bar show, from one of two sources: the live worker's status file, or —
// when no worker is alive — the artifacts, counted by the core's dry run (`fpsweep dry-run --json`).
// Pure functions, no vscode: tested under plain mocha.
import type { DryRunJson } from './dryrun/jsonSchema';
import type { ServerStatus } from '../../runner/serverStatus';
import { stopReasonLines } from '../../runner/stopReason';
import type { WorkerStatus } from './status/statusSchema';
import { etaShare, type LeftOver } from '../../runner/eta';
import { showFailedBefore } from './package/failedBefore';

/**
 * One benchmark × condition. `done` counts rows in the CSV (any status); `todo` what is left to write
 * (requests, and NA/reuse rows not yet written); `na`/`reuse` how many of the cell's rows are (or will
 * be) NA/reuse; `failed` items that failed or cannot run for a fault (a bad meta.json, a request that failed);
 * `noVideo` items whose video is not in the package: expected (the seed logs them as failures for the origin side),
 * so shown apart from failures and never as an alarm. Both sources (the worker's CellBook and the dry run's unit
 * statuses) keep done + todo + failed + noVideo == total.
 */
export interface CellView {
  benchmark: string;
  condition: string;
  total: number;
  done: number;
  todo: number;
  na: number;
  reuse: number;
  failed: number;
  noVideo: number;
  /** Predicted prompt tokens of the requests left (the worker's ETA measure); absent or null when not known. */
  remainingTokens?: number | null;
}

export interface BenchmarkView {
  benchmark: string;
  cells: CellView[];
  total: number;
  /** Rows in the CSV. */
  finished: number;
  failed: number;
  noVideo: number;
}

export interface ProgressView {
  source: 'worker' | 'artifacts';
  runId: string | null;
  startedAt: string | null;
  live: boolean;
  state: string | null;
  mode: string | null;
  message: string | null;
  benchmarks: BenchmarkView[];
  total: number;
  finished: number;
  failed: number;
  /** Items with no video in the package (expected; not failures). */
  noVideo: number;
  etaSeconds: number | null;
  servers: ServerStatus[];
  summary: string | null;
  /** Why the run stopped on its own (fail-fast, pre-flight, no server left), as lines for the tree's top; empty otherwise. */
  stopLines: string[];
}

// The shape of `dry-run --json` is defined once, beside the dry run that prints it.
export { dryRunJsonSchema, type DryRunJson } from './dryrun/jsonSchema';

function group(cells: CellView[]): BenchmarkView[] {
  const by = new Map<string, CellView[]>();
  for (const c of cells) {
    const list = by.get(c.benchmark) ?? [];
    list.push(c);
    by.set(c.benchmark, list);
  }
  return [...by].map(([benchmark, list]) => ({
    benchmark,
    cells: list,
    total: sum(list, (c) => c.total),
    finished: sum(list, finishedOf),
    failed: sum(list, (c) => c.failed),
    noVideo: sum(list, (c) => c.noVideo),
  }));
}

function sum<T>(xs: T[], f: (x: T) => number): number {
  return xs.reduce((a, x) => a + f(x), 0);
}

export function finishedOf(c: CellView): number {
  return c.done;
}

// Units still to write whose last attempt (in an earlier run) failed are shown as failed, not todo,
// until a run asks them again: the same rule (package/failedBefore.ts, this folder's) for the live worker and the dry run.

export function fromWorkerStatus(s: WorkerStatus, live: boolean): ProgressView {
  const cells: CellView[] = s.cells.map((c) => ({
    benchmark: c.benchmark,
    condition: c.condition,
    total: c.total,
    done: c.done,
    ...showFailedBefore({ todo: c.todo, failed: c.failed, failedBefore: c.failedBefore }),
    noVideo: c.noVideo,
    na: c.na,
    reuse: c.reuse,
    remainingTokens: c.remainingTokens ?? null,
  }));
  const benchmarks = group(cells);
  return {
    source: 'worker',
    runId: s.runId,
    startedAt: s.startedAt,
    live,
    state: s.state,
    mode: s.mode,
    message: s.message,
    benchmarks,
    total: sum(benchmarks, (b) => b.total),
    finished: sum(benchmarks, (b) => b.finished),
    failed: sum(benchmarks, (b) => b.failed),
    noVideo: sum(benchmarks, (b) => b.noVideo),
    etaSeconds: live ? s.etaSeconds : null,
    servers: live ? s.servers : s.servers.map((x) => ({ ...x, state: 'down' as const, running: null, waiting: null })),
    summary: s.summary,
    stopLines: s.stopReason ? stopReasonLines(s.stopReason).map((l) => l.trim()) : [],
  };
}

export function fromDryRun(d: DryRunJson): ProgressView {
  const cells: CellView[] = d.rows.map((r) => ({
    benchmark: r.benchmark,
    condition: r.condition,
    total: r.todo + r.NA + r.reuse + r.done + r.no_video + (r.bad_meta ?? 0),
    done: r.done,
    // Every unit is one of done / NA / reuse / todo / no_video / bad_meta: NA and reuse rows are still to
    // write; an invalid meta.json is failed; no video is its own count. failed_before is a subset of todo + reuse.
    ...showFailedBefore({
      todo: r.todo + r.NA + r.reuse,
      failed: r.bad_meta ?? 0,
      failedBefore: Math.min(r.failed_before ?? 0, r.todo + r.reuse),
    }),
    noVideo: r.no_video,
    na: r.NA,
    reuse: r.reuse,
    remainingTokens: null,
  }));
  const benchmarks = group(cells);
  return {
    source: 'artifacts',
    runId: null,
    startedAt: null,
    live: false,
    state: null,
    mode: null,
    message: null,
    benchmarks,
    total: sum(benchmarks, (b) => b.total),
    finished: sum(benchmarks, (b) => b.finished),
    failed: sum(benchmarks, (b) => b.failed),
    noVideo: sum(benchmarks, (b) => b.noVideo),
    etaSeconds: null,
    servers: [],
    summary: null,
    stopLines: [],
  };
}

function leftOf(cells: readonly CellView[]): LeftOver {
  return {
    todo: sum([...cells], (c) => c.todo),
    tokens: cells.every((c) => c.remainingTokens !== null && c.remainingTokens !== undefined) ? sum([...cells], (c) => c.remainingTokens ?? 0) : null,
  };
}

/**
 * A benchmark's share of the worker's one ETA, measured as the worker measures it: by the predicted
 * tokens left (a v_blind request is ~100 tokens, a capped fps one 65,000), by requests for an older status file.
 */
export function benchmarkEtaSeconds(view: Pick<ProgressView, 'etaSeconds' | 'benchmarks'>, bench: BenchmarkView): number | null {
  return etaShare(view.etaSeconds, leftOf(bench.cells), leftOf(view.benchmarks.flatMap((b) => b.cells)));
}

export function percent(finished: number, total: number): number {
  return total === 0 ? 100 : Math.floor((100 * finished) / total);
}

/** 3725 → "1h 2m"; 59 → "59s". */
export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${m % 60}m`;
}

export type CellState = 'done' | 'failed' | 'running' | 'todo' | 'na';

/** The one state whose icon a cell shows: failures first, so they are never hidden by progress. */
export function cellState(c: CellView, live: boolean): CellState {
  if (c.failed > 0) return 'failed';
  // Every row of the cell is NA (e.g. v_128 on too-short videos): nothing was or will be asked.
  if (c.total > 0 && c.na === c.total) return 'na';
  if (c.todo === 0) return 'done';
  // Only a cell that has moved is "running"; the rest of a live run is still queued.
  if (live && finishedOf(c) > 0) return 'running';
  return 'todo';
}
