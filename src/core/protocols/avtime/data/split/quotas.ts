// Largest-remainder quotas over the 25 strata (SPEC-AVTIME-DATA §1 [decided]), in integers so no rounding can
// move a row: stratum s gets ⌊size·n_s/n⌋, then the rest one each by largest remainder (size·n_s mod n),
// ties to the lower stratum index.
export function stratumQuotas(counts: readonly number[], size: number): number[] {
  const n = counts.reduce((a, b) => a + b, 0);
  const quota = counts.map((c) => Math.floor((size * c) / n));
  let rest = size - quota.reduce((a, b) => a + b, 0);
  const order = counts.map((c, s) => ({ s, r: (size * c) % n })).sort((a, b) => b.r - a.r || a.s - b.s);
  for (const { s } of order) {
    if (rest === 0) break;
    quota[s]++;
    rest--;
  }
  return quota;
}
