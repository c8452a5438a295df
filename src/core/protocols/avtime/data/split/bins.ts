// Quantile bins, five for each of duration and event count (SPEC-AVTIME-DATA §1 [decided]).

/** Values sorted ascending; cut point q_k = the value at index ⌊k·n/5⌋ for k = 1..4. */
export function cutPoints(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return [1, 2, 3, 4].map((k) => sorted[Math.floor((k * n) / 5)]);
}

/** The number of cut points v reaches (0..4). */
export function binOf(v: number, cuts: readonly number[]): number {
  return cuts.filter((q) => v >= q).length;
}

/** How many of `bins` fall in each of the five bins. */
export function binCounts(bins: readonly number[]): number[] {
  const out = [0, 0, 0, 0, 0];
  for (const b of bins) out[b]++;
  return out;
}
