// Continuous percentages → the seed's percent buckets (SPEC-AVTIME-DATA "Common rules"): start bucket ⌊x⌋,
// end bucket ⌈x⌉ − 1, each clamped to [0, 99], and end ≥ start.
import { MAX_PCT } from '../constants';

const clamp = (b: number) => Math.min(Math.max(b, 0), MAX_PCT);

export function toBuckets(startPct: number, endPct: number): { start_pct: number; end_pct: number } {
  const start = clamp(Math.floor(startPct));
  const end = clamp(Math.ceil(endPct) - 1);
  return { start_pct: start, end_pct: Math.max(end, start) };
}

/** A time in ms as a continuous percentage of the duration: 100·t/D. */
export const msToPct = (ms: number, durationMs: number): number => (100 * ms) / durationMs;
