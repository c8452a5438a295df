// Honest error bars for the six AVTime scores (issue 19 point 4): a percentile bootstrap that resamples
// videos, not queries, because queries about one video share its prediction and are not independent. Each
// replicate draws as many videos as there are, with replacement, from a seeded PRNG (mulberry32), and
// recomputes every score as the replicate's query-weighted mean (Σ scores / Σ queries over the drawn
// videos, the same estimator as summary.json). The audio − visual difference of a direction uses the same
// draw for both axes, so it is paired by video. Pure: same queries, seed and replicate count → same numbers.
import { SeededRandom } from '../../../seededRandom';
import { SCORE_KEYS, type ScoreKey } from '../constants';

export const BOOTSTRAP_METHOD = 'percentile bootstrap over videos (clusters resampled with replacement)';
export const BOOTSTRAP_PRNG = 'mulberry32';
export const BOOTSTRAP_QUANTILE = 'linear interpolation between order statistics (Hyndman-Fan type 7, numpy default)';

/** The run's bootstrap: seed, replicates and level are written into summary_ci.json with the intervals. */
export const DEFAULT_BOOTSTRAP: BootstrapOptions = { seed: 1234, replicates: 2000, level: 0.95 };

export const DIRECTIONS = ['t2e', 'e2t', 'e2e'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** One scored query: the video it is about, its score key (direction × axis), its score in [0, 1]. */
export interface ScoredQuery {
  video_id: string;
  key: ScoreKey;
  score: number;
}

export interface BootstrapOptions {
  seed: number;
  replicates: number;
  /** Two-sided coverage, e.g. 0.95. */
  level: number;
}

export interface BootstrapInterval {
  estimate: number;
  lo: number;
  hi: number;
  /** Replicates in which the statistic exists (a draw without any query of that key has no mean). */
  replicates_used: number;
}

export interface ScoreInterval extends BootstrapInterval {
  queries: number;
  videos: number;
}

export interface SummaryCi {
  method: string;
  prng: string;
  quantile: string;
  seed: number;
  replicates: number;
  level: number;
  /** Videos resampled (those with at least one query). */
  videos: number;
  scores: Record<ScoreKey, ScoreInterval>;
  /** `<DIR>-A − <DIR>-V` per direction, paired by video. */
  audio_minus_visual: Record<Direction, BootstrapInterval & { videos: number }>;
}

/** The `p`-quantile of ascending `sorted` (type 7: h = (n − 1)·p, interpolated). */
export function quantileSorted(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const h = (sorted.length - 1) * p;
  const i = Math.floor(h);
  const f = h - i;
  return f === 0 || i + 1 >= sorted.length ? sorted[i] : sorted[i] + f * (sorted[i + 1] - sorted[i]);
}

function interval(estimate: number, reps: number[], level: number): BootstrapInterval {
  reps.sort((a, b) => a - b);
  const a = (1 - level) / 2;
  return { estimate, lo: quantileSorted(reps, a), hi: quantileSorted(reps, 1 - a), replicates_used: reps.length };
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

export function bootstrapSummary(queries: readonly ScoredQuery[], opts: BootstrapOptions): SummaryCi {
  if (!Number.isSafeInteger(opts.replicates) || opts.replicates < 1) throw new Error(`replicates ${opts.replicates} is not a positive integer`);
  if (!(opts.level > 0 && opts.level < 1)) throw new Error(`level ${opts.level} is not in (0, 1)`);
  // Videos in code-unit order, so the draw does not depend on the order of the queries.
  const videos = [...new Set(queries.map((q) => q.video_id))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map(videos.map((v, i) => [v, i]));
  const n = videos.length;
  const K = SCORE_KEYS.length;
  const sum = Array.from({ length: K }, () => new Float64Array(n));
  const count = Array.from({ length: K }, () => new Float64Array(n));
  // Every mean lies within its scores' range; clamping to it removes rounding drift (a constant stays exact).
  const min = new Array<number>(K).fill(Infinity);
  const max = new Array<number>(K).fill(-Infinity);
  const scoresOf = Array.from({ length: K }, () => Array.from({ length: n }, () => [] as number[]));
  for (const q of queries) {
    const k = SCORE_KEYS.indexOf(q.key);
    if (k < 0) throw new Error(`unknown score key ${q.key}`);
    if (!Number.isFinite(q.score)) throw new Error(`query on ${q.video_id} (${q.key}) has score ${q.score}`);
    scoresOf[k][index.get(q.video_id)!].push(q.score);
    min[k] = Math.min(min[k], q.score);
    max[k] = Math.max(max[k], q.score);
  }
  // Summed in ascending order, so the order of the queries cannot change a bit of the result.
  scoresOf.forEach((perVideo, k) =>
    perVideo.forEach((xs, v) => {
      sum[k][v] = xs.sort((a, b) => a - b).reduce((a, x) => a + x, 0);
      count[k][v] = xs.length;
    }),
  );
  /** Query-weighted mean of key k over videos with multiplicity `m` (null when no drawn video has such a query). */
  const mean = (k: number, m: Float64Array): number | null => {
    let s = 0;
    let c = 0;
    for (let v = 0; v < n; v++) {
      if (m[v] === 0) continue;
      s += m[v] * sum[k][v];
      c += m[v] * count[k][v];
    }
    return c === 0 ? null : clamp(s / c, min[k], max[k]);
  };
  const empty = SCORE_KEYS.filter((_, k) => min[k] === Infinity);
  if (empty.length) throw new Error(`no queries for ${empty.join(', ')}: every one of the six scores needs at least one query`);
  const ones = new Float64Array(n).fill(1);
  const estimates = SCORE_KEYS.map((_, k) => mean(k, ones)!);
  const reps = SCORE_KEYS.map(() => [] as number[]);
  const diffs = DIRECTIONS.map(() => [] as number[]);
  const kA = DIRECTIONS.map((d) => SCORE_KEYS.indexOf(`${d.toUpperCase()}-A` as ScoreKey));
  const kV = DIRECTIONS.map((d) => SCORE_KEYS.indexOf(`${d.toUpperCase()}-V` as ScoreKey));
  const rng = new SeededRandom(opts.seed);
  const m = new Float64Array(n);
  for (let b = 0; b < opts.replicates; b++) {
    m.fill(0);
    for (let i = 0; i < n; i++) m[rng.int(n)] += 1;
    const r = SCORE_KEYS.map((_, k) => mean(k, m));
    r.forEach((x, k) => x !== null && reps[k].push(x));
    DIRECTIONS.forEach((_, d) => {
      const a = r[kA[d]];
      const v = r[kV[d]];
      if (a !== null && v !== null) diffs[d].push(clamp(a - v, min[kA[d]] - max[kV[d]], max[kA[d]] - min[kV[d]]));
    });
  }
  const videosWith = (k: number) => count[k].reduce((c, x) => c + (x > 0 ? 1 : 0), 0);
  const scores = Object.fromEntries(
    SCORE_KEYS.map((key, k) => [key, { ...interval(estimates[k], reps[k], opts.level), queries: count[k].reduce((c, x) => c + x, 0), videos: videosWith(k) }]),
  ) as Record<ScoreKey, ScoreInterval>;
  const audioMinusVisual = Object.fromEntries(
    DIRECTIONS.map((dir, d) => {
      const both = count[kA[d]].reduce((c, x, i) => c + (x > 0 && count[kV[d]][i] > 0 ? 1 : 0), 0);
      return [dir, { ...interval(estimates[kA[d]] - estimates[kV[d]], diffs[d], opts.level), videos: both }];
    }),
  ) as SummaryCi['audio_minus_visual'];
  return {
    method: BOOTSTRAP_METHOD,
    prng: BOOTSTRAP_PRNG,
    quantile: BOOTSTRAP_QUANTILE,
    seed: opts.seed,
    replicates: opts.replicates,
    level: opts.level,
    videos: n,
    scores,
    audio_minus_visual: audioMinusVisual,
  };
}
