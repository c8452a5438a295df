// What one (video, condition) will be — NA, reuse or send, the dims sent and how many frames at
// most — from the same protocol rules planFrames applies, without selecting frames. Selecting the
// fps grids of ~19,600 videos costs seconds and frame lists cost memory; the plan needs only the
// status and a token bound, and calls planFrames itself where the bound comes near the context.
// test/core/protocols/fp/plan/sketch.test.ts checks that this agrees with planFrames on random videos.
import type { Condition } from '../rules/conditions';
import type { VideoMetaLike } from '../rules/plan';
import { predictPromptTokens } from '../rules/qwenTokens';
import { fpsFrameCap, resizeDims, seedTokensPerFrame, type Dims } from '../rules/resize';
import { isNotApplicable, reuseSource } from '../rules/rules';

export type PlanSketch =
  | { status: 'NA' }
  | { status: 'reuse'; from: string }
  | {
      status: 'send';
      /** Dims sent; null for v_blind. */
      width: number | null;
      height: number | null;
      /** Frames sent: exact when `exact`, else an upper bound (fps grids, before selection). */
      frames: number;
      exact: boolean;
    };

/** The few facts of a meta.json the sketch needs (small enough to cache for a whole package). */
export interface MetaSummary {
  width: number;
  height: number;
  too_short: boolean;
  nFrames: number;
  firstTs: number;
  lastTs: number;
}

export function summarizeMeta(meta: VideoMetaLike): MetaSummary {
  const n = meta.timestamps.length;
  return { width: meta.width, height: meta.height, too_short: meta.too_short, nFrames: n, firstTs: meta.timestamps[0], lastTs: meta.timestamps[n - 1] };
}

export function sketchPlan(cond: Condition, meta: MetaSummary | null): PlanSketch {
  if (cond.kind === 'blind') return { status: 'send', width: null, height: null, frames: 0, exact: true };
  if (meta === null) throw new Error(`condition ${cond.name} needs the video's metadata`);
  if (isNotApplicable(cond, meta.too_short)) return { status: 'NA' };
  const from = reuseSource(cond.name, Math.min(meta.width, meta.height));
  if (from !== null) return { status: 'reuse', from };
  const dims = resizeDims(meta.width, meta.height, cond.shortSide);
  const n = meta.nFrames;
  if (cond.kind === 'count') {
    // SPEC §2.1: all n frames when n <= N, else exactly N distinct frames.
    return { status: 'send', ...dims, frames: Math.min(cond.nFrames, n), exact: true };
  }
  // SPEC §2.2: at most N_max frames are sent; they are distinct stored frames (≤ n), one per grid
  // time at most (the grid t0 + j/F ≤ t_last + 1e-9 has floor((t_last − t0)·F) + 1 points; the
  // 1e-6 s slack keeps this an upper bound through floating point). Close to exact in practice.
  const nMax = fpsFrameCap(seedTokensPerFrame(dims.width, dims.height));
  const gridPoints = Math.floor((meta.lastTs - meta.firstTs + 1e-6) * cond.fps) + 1;
  return { status: 'send', ...dims, frames: Math.min(nMax, n, gridPoints), exact: false };
}

/**
 * Prompt tokens as predictPromptTokens counts them, split into an image part (cached per dims and
 * frame count: a few thousand distinct pairs for a whole package) and a text part (per item), so a
 * unit costs two lookups instead of a loop over up to 1024 frames. The split is exact: the sum
 * equals predictPromptTokens(frames, text) (checked in test/core/protocols/fp/plan/sketch.test.ts).
 */
export class TokenPredictor {
  private readonly imageCache = new Map<number, number>();
  private readonly empty = predictPromptTokens([], '');

  imageTokens(width: number | null, height: number | null, frames: number): number {
    if (width === null || height === null || frames === 0) return 0;
    const key = (width * 65536 + height) * 2048 + frames; // dims < 65,536, frames <= 1024: one exact number
    let t = this.imageCache.get(key);
    if (t === undefined) {
      const d: Dims = { width, height };
      t = predictPromptTokens(new Array<Dims>(frames).fill(d), '') - this.empty;
      this.imageCache.set(key, t);
    }
    return t;
  }

  textTokens(promptText: string): number {
    return predictPromptTokens([], promptText);
  }
}
