// The findings of a sweep, pure: FindingsInput (table.ts) → Findings (types.ts). See stats.ts for the formulas
// and verdict.ts for the verdict rule.
import { benjaminiHochberg, clusteredMean, mcnemarExactP, minimumDetectableEffect, wilson, Z95, Z975 } from './stats';
import { conditionOrder, ladderFlags } from './ladder';
import type { BenchmarkTable, RowInfo } from './table';
import type { FindingsInput } from './table';
import { decideVerdict } from './verdict';
import {
  ALPHA,
  CONTRASTS,
  DEFAULT_DELTA_PTS,
  TESTED_CONTRASTS,
  type BenchmarkFindings,
  type Cell,
  type Contrast,
  type ContrastName,
  type Findings,
  type Flip,
} from './types';

export interface FindingsOptions {
  /** δ in accuracy points (default 3). */
  deltaPts?: number;
  /** Add the items that flip in each contrast, with every condition's answer (for a drill-down; large). */
  flips?: boolean;
}

export const METHOD =
  'acc = 100·k/n over ok rows (NA and reuse rows are counted apart); Wilson 95 % score interval. Contrasts pair the items ' +
  'with both conditions ok: b = first right & second wrong, c = the other way, Δ = 100·(b − c)/n; 95 % (and 90 %) interval ' +
  'Δ ± z·SE with the cluster-robust SE = √(Σ_v (Σ_{i∈v} (d_i − d̄))²)/n, videos as clusters, normal quantiles; ' +
  "McNemar's exact two-sided p = min(1, 2·P(Bin(b + c, ½) ≤ min(b, c))); Benjamini–Hochberg q over every benchmark × " +
  '{pixels, frames} with pairs; MDE = (z_0.975 + z_0.80)·SE (80 % power, two-sided 5 %); chance = mean of 1/options.';

const pct = (x: number) => 100 * x;

export function cellOf(rows: ReadonlyMap<string, RowInfo> | undefined): Cell {
  let n = 0,
    k = 0,
    na = 0,
    reuse = 0;
  for (const r of rows?.values() ?? []) {
    if (r.status === 'NA') na++;
    else if (r.status === 'reuse') reuse++;
    else if (r.status === 'ok' && r.correct !== null) {
      n++;
      k += r.correct;
    }
  }
  if (n === 0) return { n, k, acc: null, lo: null, hi: null, na, reuse };
  const w = wilson(k, n);
  return { n, k, acc: pct(k / n), lo: pct(w.lo), hi: pct(w.hi), na, reuse };
}

/** The paired rows of two conditions: items with both ok (and a valid correct), in item order. */
export function pairs(t: BenchmarkTable, first: string, second: string): { id: string; a: 0 | 1; b: 0 | 1; cluster: string }[] {
  const A = t.rows.get(first);
  const B = t.rows.get(second);
  const out: { id: string; a: 0 | 1; b: 0 | 1; cluster: string }[] = [];
  if (!A || !B) return out;
  for (const [id, item] of t.items) {
    const ra = A.get(id);
    const rb = B.get(id);
    if (ra?.status === 'ok' && rb?.status === 'ok' && ra.correct !== null && rb.correct !== null)
      out.push({ id, a: ra.correct, b: rb.correct, cluster: item.cluster });
  }
  return out;
}

export function contrastOf(t: BenchmarkTable, first: string, second: string): Contrast {
  const ps = pairs(t, first, second);
  const n = ps.length;
  let b = 0,
    c = 0;
  for (const p of ps) {
    if (p.a > p.b) b++;
    else if (p.a < p.b) c++;
  }
  if (n === 0) return { n, b, c, delta: null, lo: null, hi: null, p: null, q: null, mde: null, lo90: null, hi90: null, clusters: 0 };
  const m = clusteredMean(
    ps.map((p) => p.a - p.b),
    ps.map((p) => p.cluster),
  );
  return {
    n,
    b,
    c,
    delta: pct(m.mean),
    lo: pct(m.mean - Z975 * m.se),
    hi: pct(m.mean + Z975 * m.se),
    p: mcnemarExactP(b, c),
    q: null,
    mde: n >= 2 ? pct(minimumDetectableEffect(m.se)) : null,
    lo90: pct(m.mean - Z95 * m.se),
    hi90: pct(m.mean + Z95 * m.se),
    clusters: m.clusters,
  };
}

/** Items whose correctness differs between two conditions, each with every condition's row (the drill-down). */
export function flipsBetween(t: BenchmarkTable, first: string, second: string, contrast: ContrastName): Flip[] {
  const conds = [...t.rows.keys()].sort(conditionOrder);
  return pairs(t, first, second)
    .filter((p) => p.a !== p.b)
    .map((p) => {
      const item = t.items.get(p.id)!;
      const answers: Flip['answers'] = {};
      for (const cond of conds) {
        const r = t.rows.get(cond)!.get(p.id);
        if (r) answers[cond] = { status: r.status, pred: r.pred, correct: r.correct === null ? null : r.correct === 1 };
      }
      return { item_id: p.id, video_id: item.video_id, contrast, first_right: p.a === 1, answer: item.answer, answers };
    });
}

/** Mean of 1/options over the items that have an option count, in points. */
export function chanceOf(t: BenchmarkTable): number | null {
  let s = 0,
    n = 0;
  for (const it of t.items.values()) {
    if (it.options) {
      s += 1 / it.options;
      n++;
    }
  }
  return n ? pct(s / n) : null;
}

export function computeFindings(input: FindingsInput, opts: FindingsOptions = {}): Findings {
  const deltaPts = opts.deltaPts ?? DEFAULT_DELTA_PTS;
  if (!(deltaPts > 0)) throw new RangeError(`δ must be > 0 points, got ${deltaPts}`);
  const benches = input.benchmarks.map((t) => {
    const conds = new Set<string>([...t.rows.keys(), ...CONTRASTS.flatMap(([, a, b]) => [a, b])]);
    const cells: Record<string, Cell> = {};
    for (const cond of [...conds].sort(conditionOrder)) cells[cond] = cellOf(t.rows.get(cond));
    const contrasts = Object.fromEntries(CONTRASTS.map(([name, a, b]) => [name, contrastOf(t, a, b)])) as Record<ContrastName, Contrast>;
    return { t, cells, contrasts };
  });
  // BH over every benchmark × {pixels, frames} that has pairs (a p-value).
  const family: Contrast[] = [];
  for (const b of benches) for (const name of TESTED_CONTRASTS) if (b.contrasts[name].p !== null) family.push(b.contrasts[name]);
  const qs = benjaminiHochberg(family.map((c) => c.p!));
  family.forEach((c, i) => (c.q = qs[i]));

  const benchmarks: BenchmarkFindings[] = benches.map(({ t, cells, contrasts }) => {
    const chance = chanceOf(t);
    const { verdict, why } = decideVerdict({ contrasts, blind: cells['v_blind'], chance, deltaPts });
    const out: BenchmarkFindings = { benchmark: t.benchmark, chance, cells, contrasts, verdict, why, items: t.items.size, flags: ladderFlags(t) };
    if (opts.flips) out.flips = CONTRASTS.flatMap(([name, a, b]) => flipsBetween(t, a, b, name));
    return out;
  });
  return { delta_pts: deltaPts, alpha: ALPHA, benchmarks, method: METHOD, rows_read: input.rowsRead };
}
