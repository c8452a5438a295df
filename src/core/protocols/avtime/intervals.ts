// Interval sets in integer milliseconds, half-open [start, end). Pure arithmetic for the scores (SPEC-AVTIME §7).

export type Interval = readonly [start: number, end: number];

function checkInterval([s, e]: Interval): void {
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s > e) {
    throw new Error(`interval [${s}, ${e}) is not a pair of integers with start ≤ end`);
  }
}

/** The union as disjoint, sorted intervals; touching pieces ([a,b) and [b,c)) join; empty pieces vanish. */
export function unionIntervals(xs: readonly Interval[]): Interval[] {
  xs.forEach(checkInterval);
  const sorted = xs.filter(([s, e]) => e > s).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Σ lengths of a union (the argument is normalized first). */
export function totalLength(xs: readonly Interval[]): number {
  return unionIntervals(xs).reduce((n, [s, e]) => n + (e - s), 0);
}

/** |A ∩ B| of two interval sets. */
export function intersectionLength(a: readonly Interval[], b: readonly Interval[]): number {
  const ua = unionIntervals(a);
  const ub = unionIntervals(b);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < ua.length && j < ub.length) {
    const lo = Math.max(ua[i][0], ub[j][0]);
    const hi = Math.min(ua[i][1], ub[j][1]);
    if (hi > lo) n += hi - lo;
    if (ua[i][1] < ub[j][1]) i++;
    else j++;
  }
  return n;
}

/** tIoU = |A ∩ B| / |A ∪ B|; 0 when the union is empty. */
export function tIoU(a: readonly Interval[], b: readonly Interval[]): number {
  const union = totalLength([...a, ...b]);
  return union === 0 ? 0 : intersectionLength(a, b) / union;
}

/** First start of a non-empty set. */
export function lo(xs: readonly Interval[]): number {
  const u = unionIntervals(xs);
  if (u.length === 0) throw new Error('lo() of an empty interval set');
  return u[0][0];
}

/** Last end of a non-empty set. */
export function hi(xs: readonly Interval[]): number {
  const u = unionIntervals(xs);
  if (u.length === 0) throw new Error('hi() of an empty interval set');
  return u[u.length - 1][1];
}
