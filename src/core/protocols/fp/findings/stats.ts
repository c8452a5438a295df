// The statistics of the findings, pure: Wilson interval, McNemar's exact test, Benjamini–Hochberg,
// the cluster-robust interval of a paired difference, and the minimum detectable effect.
// Each follows a named reference, and test/core/protocols/fp/findings/reference.test.ts checks it against
// scipy/statsmodels to 1e-9.

/** Standard normal quantiles (scipy.stats.norm.ppf(0.975), (0.95), (0.80)), to double precision. */
export const Z975 = 1.959963984540054;
export const Z95 = 1.6448536269514722;
export const Z80 = 0.8416212335729143;

/** Wilson score interval for k of n (statsmodels proportion_confint(k, n, alpha, method='wilson')), as proportions. */
export function wilson(k: number, n: number, z = Z975): { lo: number; hi: number } {
  if (n <= 0) throw new RangeError('wilson: n must be > 0');
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/** log of a sum of exponentials, stable. */
function logSumExp(xs: number[]): number {
  const m = Math.max(...xs);
  if (m === -Infinity) return -Infinity;
  let s = 0;
  for (const x of xs) s += Math.exp(x - m);
  return m + Math.log(s);
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space so that large n does not underflow. */
export function binomHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  const terms: number[] = [];
  let logC = 0; // log C(n, j)
  for (let j = 0; j <= k; j++) {
    if (j > 0) logC += Math.log((n - j + 1) / j);
    terms.push(logC - n * Math.LN2);
  }
  return Math.min(1, Math.exp(logSumExp(terms)));
}

/**
 * McNemar's exact two-sided p on the discordant counts: min(1, 2·P(X ≤ min(b, c))) with X ~ Bin(b + c, 1/2)
 * (statsmodels.stats.contingency_tables.mcnemar(exact=True); equal to scipy.stats.binomtest's two-sided p at 1/2).
 * 1 when there is no discordant pair.
 */
export function mcnemarExactP(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomHalfCdf(Math.min(b, c), n));
}

/** Benjamini–Hochberg adjusted p-values in input order (statsmodels multipletests(method='fdr_bh')). */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const q = new Array<number>(m);
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    running = Math.min(running, (order[r].p * m) / (r + 1));
    q[order[r].i] = Math.min(1, running);
  }
  return q;
}

export interface PairedDifference {
  n: number;
  /** Mean of d (a proportion difference). */
  mean: number;
  /** Cluster-robust SE of the mean: √(Σ_v (Σ_{i∈v} (d_i − d̄))²) / n, no small-sample correction. */
  se: number;
  clusters: number;
}

/**
 * The mean of paired differences d_i with a cluster-robust (sandwich) SE, clusters = videos. Equal to
 * statsmodels OLS(d, 1).fit(cov_type='cluster', cov_kwds={groups, use_correction: False}).
 */
export function clusteredMean(d: readonly number[], cluster: readonly string[]): PairedDifference {
  const n = d.length;
  if (n === 0) return { n: 0, mean: NaN, se: NaN, clusters: 0 };
  let sum = 0;
  for (const x of d) sum += x;
  const mean = sum / n;
  const byCluster = new Map<string, number>();
  for (let i = 0; i < n; i++) byCluster.set(cluster[i], (byCluster.get(cluster[i]) ?? 0) + (d[i] - mean));
  let ss = 0;
  for (const s of byCluster.values()) ss += s * s;
  return { n, mean, se: Math.sqrt(ss) / n, clusters: byCluster.size };
}

/**
 * Minimum detectable effect of a two-sided test at level 0.05 with 80 % power, on the normal approximation:
 * MDE = (z_0.975 + z_0.80) · SE = 2.8016 · SE, with SE the cluster-robust SE observed. (The SE under an
 * effect of that size is taken equal to the observed one: the usual planning approximation.)
 */
export function minimumDetectableEffect(se: number): number {
  return (Z975 + Z80) * se;
}
