// Dry run (SPEC §8): per benchmark × condition counts of items — todo, NA, reuse, done, no_video
// (plus bad_meta, an invalid meta.json), the todo units a 65,536-token server would refuse, and
// the units still to write whose last attempt failed (failures.jsonl; a run asks them again).
// Read only: a torn CSV tail is reported, not moved (the run moves it).
import type { LineProblem } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { loadPackage } from '../package/load';
import { readResultsCsv, type TornTail } from '../package/resultsCsv';
import { buildWorkPlan } from '../plan/buildWorkPlan';
import { emptyCounts, type UnitCounts, type WorkPlan } from '../plan/types';
import { readFailedKeys } from '../package/failedKeys';
import { isFailedBefore } from '../package/failedBefore';
import { applyShard, type ShardSpec } from '../shard/shard';

export const COUNT_KEYS = ['todo', 'NA', 'reuse', 'done', 'no_video', 'bad_meta', 'context_refusals', 'failed_before'] as const;

export interface DryRunCounts extends UnitCounts {
  /** todo and reuse units (still to write) with a line in data/logs/failures.jsonl: they failed before. */
  failed_before: number;
}

export interface DryRunRow extends DryRunCounts {
  benchmark: string;
  condition: string;
}

export interface DryRunReport {
  rows: DryRunRow[];
  totals: DryRunCounts;
  /** Problems met in the package's files and the results CSV (file:line). */
  problems: LineProblem[];
  torn: TornTail | null;
  /** v_32 was added to the plan because reuse rows need it (CONDS left it out). */
  addedConditions: string[];
  /** The plan itself, when asked for with keepPlan (doctor reuses it rather than planning twice). */
  plan?: WorkPlan;
}

export interface DryRunOptions {
  conditions: readonly string[];
  benchmarks?: readonly string[];
  keepPlan?: boolean;
  /** `--shard K/N`: count only the shard's items (shard/shard.ts). */
  shard?: ShardSpec;
}

/**
 * Rows in plan order (benchmark, then the plan's condition order) and their totals. `failedKeys`
 * (benchmark, item, condition keys from failures.jsonl) marks the units still to write that failed before.
 */
export function countsFromPlan(plan: WorkPlan, failedKeys: ReadonlySet<string> = new Set()): { rows: DryRunRow[]; totals: DryRunCounts } {
  const failedBefore = new Map<string, number>();
  if (failedKeys.size) {
    for (const u of plan.units) {
      if (isFailedBefore(u, failedKeys)) {
        const k = `${u.benchmark}\0${u.condition}`;
        failedBefore.set(k, (failedBefore.get(k) ?? 0) + 1);
      }
    }
  }
  const rows: DryRunRow[] = [];
  const totals: DryRunCounts = { ...emptyCounts(), failed_before: 0 };
  for (const benchmark of plan.benchmarks) {
    const byCond = plan.counts.get(benchmark);
    for (const condition of plan.conditions) {
      const c = byCond?.get(condition);
      if (!c) continue;
      const row: DryRunRow = { benchmark, condition, ...c, failed_before: failedBefore.get(`${benchmark}\0${condition}`) ?? 0 };
      rows.push(row);
      for (const k of COUNT_KEYS) totals[k] += row[k];
    }
  }
  return { rows, totals };
}

export async function dryRun(root: string, opts: DryRunOptions): Promise<DryRunReport> {
  const layout = new PackageLayout(root);
  const pkg = applyShard(await loadPackage(layout, { benchmarks: opts.benchmarks }), opts.shard);
  const csv = await readResultsCsv(layout.resultsCsv);
  const plan = await buildWorkPlan(pkg, csv, { conditions: opts.conditions });
  const failed = await readFailedKeys(layout.failuresLog);
  const { rows, totals } = countsFromPlan(plan, failed.keys);
  return {
    rows,
    totals,
    problems: [...pkg.problems, ...csv.problems, ...failed.problems],
    torn: csv.torn,
    addedConditions: plan.conditions.filter((c) => !opts.conditions.includes(c)),
    ...(opts.keepPlan ? { plan } : {}),
  };
}

const HEADINGS: Record<(typeof COUNT_KEYS)[number], string> = {
  todo: 'todo',
  NA: 'NA',
  reuse: 'reuse',
  done: 'done',
  no_video: 'no_video',
  bad_meta: 'bad_meta',
  context_refusals: 'ctx_refusals',
  failed_before: 'failed_before',
};

/** The readable table: one line per benchmark × condition, then the totals. */
export function formatDryRunTable(report: Pick<DryRunReport, 'rows' | 'totals'>): string {
  const head = ['benchmark', 'condition', ...COUNT_KEYS.map((k) => HEADINGS[k])];
  const body = report.rows.map((r) => [r.benchmark, r.condition, ...COUNT_KEYS.map((k) => String(r[k]))]);
  const total = ['TOTAL', '', ...COUNT_KEYS.map((k) => String(report.totals[k]))];
  const all = [head, ...body, total];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((s, i) => (i < 2 ? s.padEnd(widths[i]) : s.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(head), rule, ...body.map(line), rule, line(total)].join('\n');
}

/** The JSON of `dry-run --json`: {"rows": [...], "totals": {...}} (SPEC §8; bad_meta and failed_before added). */
export function dryRunJson(report: Pick<DryRunReport, 'rows' | 'totals'>): string {
  const pick = (c: DryRunCounts) => Object.fromEntries(COUNT_KEYS.map((k) => [k, c[k]]));
  return JSON.stringify({
    rows: report.rows.map((r) => ({ benchmark: r.benchmark, condition: r.condition, ...pick(r) })),
    totals: pick(report.totals),
  });
}
