// Frame selection over stored timestamps (SPEC §2.1, §2.2). Pure; indices refer to stored frames.
import { TIE_EPS_S } from './constants';

/** Index of the timestamp nearest to `target`; a tie (within 1e-9 s) goes to the lower index. */
export function nearestIndex(ts: readonly number[], target: number): number {
  // Binary search for the first timestamp >= target.
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return 0;
  if (lo === ts.length) return ts.length - 1;
  const dBelow = target - ts[lo - 1];
  const dAbove = ts[lo] - target;
  return dAbove < dBelow - TIE_EPS_S ? lo : lo - 1;
}

export interface TimeUniformSelection {
  indices: number[];
  /** True when the video has fewer frames than asked for (all frames are sent). */
  capped: boolean;
}

/** N time-uniform frames: targets at the centres of N equal slices of [t0, t_last]. */
export function selectTimeUniform(ts: readonly number[], n: number): TimeUniformSelection {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`frame count must be a positive integer, got ${n}`);
  const count = ts.length;
  if (count <= n) return { indices: Array.from({ length: count }, (_, i) => i), capped: count < n };
  const t0 = ts[0];
  const span = ts[count - 1] - t0;
  const indices = new Array<number>(n);
  for (let k = 0; k < n; k++) indices[k] = nearestIndex(ts, t0 + ((k + 0.5) * span) / n);
  return { indices, capped: false };
}

export interface FpsSelection {
  indices: number[];
  /** Frames on the grid after mapping to stored frames and dropping duplicates. */
  nGrid: number;
  /** True when the grid exceeded the cap and was re-sampled to `nMax` frames. */
  cappedCtx: boolean;
}

/** The fps grid `t0 + j/F` mapped to the nearest stored frames, deduplicated, capped at `nMax`. */
export function selectFpsGrid(ts: readonly number[], fps: number, nMax: number): FpsSelection {
  if (!(fps > 0)) throw new RangeError(`fps must be > 0, got ${fps}`);
  if (!Number.isInteger(nMax) || nMax < 1) throw new RangeError(`nMax must be a positive integer, got ${nMax}`);
  const t0 = ts[0];
  const tLast = ts[ts.length - 1];
  // A NaN bound would never end the grid loop; callers validate meta.json, this keeps the function total.
  if (!Number.isFinite(t0) || !Number.isFinite(tLast)) throw new RangeError('timestamps must be finite numbers');
  const grid: number[] = [];
  for (let j = 0; ; j++) {
    const g = t0 + j / fps;
    if (g > tLast + TIE_EPS_S) break;
    const idx = nearestIndex(ts, g);
    // The grid ascends, so nearest indices never decrease: a repeat is always the last one taken.
    if (grid.length === 0 || grid[grid.length - 1] !== idx) grid.push(idx);
  }
  if (grid.length <= nMax) return { indices: grid, nGrid: grid.length, cappedCtx: false };
  const gridTs = grid.map((i) => ts[i]);
  const resampled = selectTimeUniform(gridTs, nMax).indices.map((g) => grid[g]);
  return { indices: resampled, nGrid: grid.length, cappedCtx: true };
}
