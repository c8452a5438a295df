// Interval sets in integer milliseconds, half-open [start, end). Pure arithmetic for the scores (SPEC-AVTIME §7).

export type Interval = readonly [start: number, end: number];

function checkInterval([s, e]: Interval): void {
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s > e) {
    throw new Error(`interval [${s}, ${e}) is not a pair of integers with start ≤ end`);
  }
}

/** The union as disjoint, sorted intervals; touching pieces ([a,b) and [b,c)) join; empty pieces vanish. */
export function unionIntervals(xs: readonly Interval[]): Interval[] {
  const sorted: Interval[] = [];
  for (const x of xs) {
    checkInterval(x);
    if (x[1] > x[0]) sorted.push(x);
  }
  sorted.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
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
  return lengthOfUnion(unionIntervals(xs));
}

function lengthOfUnion(u: readonly Interval[]): number {
  let n = 0;
  for (const [s, e] of u) n += e - s;
  return n;
}

/** |A ∩ B| of two disjoint sorted sets (unionIntervals' output): one merge-like walk. */
function intersectionOfUnions(ua: readonly Interval[], ub: readonly Interval[]): number {
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

/** |A ∩ B| of two interval sets. */
export function intersectionLength(a: readonly Interval[], b: readonly Interval[]): number {
  return intersectionOfUnions(unionIntervals(a), unionIntervals(b));
}

/** tIoU = |A ∩ B| / |A ∪ B| (|A ∪ B| = |A| + |B| − |A ∩ B| over the unions); 0 when the union is empty. */
export function tIoU(a: readonly Interval[], b: readonly Interval[]): number {
  const ua = unionIntervals(a);
  const ub = unionIntervals(b);
  const inter = intersectionOfUnions(ua, ub);
  const union = lengthOfUnion(ua) + lengthOfUnion(ub) - inter;
  return union === 0 ? 0 : inter / union;
}

/** First start of a set with a non-empty interval (empty intervals count for nothing, as in the union). */
export function lo(xs: readonly Interval[]): number {
  let m = Infinity;
  for (const x of xs) {
    checkInterval(x);
    if (x[1] > x[0] && x[0] < m) m = x[0];
  }
  if (m === Infinity) throw new Error('lo() of an empty interval set');
  return m;
}

/** Last end of a set with a non-empty interval. */
export function hi(xs: readonly Interval[]): number {
  let m = -Infinity;
  for (const x of xs) {
    checkInterval(x);
    if (x[1] > x[0] && x[1] > m) m = x[1];
  }
  if (m === -Infinity) throw new Error('hi() of an empty interval set');
  return m;
}
