// What one (video, condition) pair sends: the single place frame choices come from.
import type { Condition } from './conditions';
import { isNotApplicable, reuseSource } from './rules';
import { fpsFrameCap, resizeDims, seedTokensPerFrame } from './resize';
import { selectFpsGrid, selectTimeUniform } from './selection';

export interface VideoMetaLike {
  width: number;
  height: number;
  timestamps: readonly number[];
  too_short: boolean;
}

export type SendPlan = {
  status: 'send';
  /** Stored frame indices in time order (empty for v_blind). */
  indices: number[];
  timestamps: number[];
  /** Dims actually sent (after resize); null for v_blind. */
  width: number | null;
  height: number | null;
  /** Short side actually sent; null for v_blind. */
  shortSide: number | null;
  /** The seed's formula at the dims sent; null for v_blind. */
  tokensPerFrame: number | null;
  /** Frame-count conditions: fewer stored frames than asked. Null where it does not apply. */
  capped: boolean | null;
  cappedCtx: boolean | null;
  nGrid: number | null;
  nMax: number | null;
};

export type FramePlan = { status: 'NA' } | { status: 'reuse'; reusedFrom: string } | SendPlan;

export function planFrames(cond: Condition, meta: VideoMetaLike | null): FramePlan {
  if (cond.kind === 'blind') {
    return {
      status: 'send',
      indices: [],
      timestamps: [],
      width: null,
      height: null,
      shortSide: null,
      tokensPerFrame: null,
      capped: null,
      cappedCtx: null,
      nGrid: null,
      nMax: null,
    };
  }
  if (meta === null) throw new Error(`condition ${cond.name} needs the video's metadata`);
  if (meta.timestamps.length === 0) throw new Error('the video has no frames');
  if (isNotApplicable(cond, meta.too_short)) return { status: 'NA' };
  const from = reuseSource(cond.name, Math.min(meta.width, meta.height));
  if (from !== null) return { status: 'reuse', reusedFrom: from };

  const dims = resizeDims(meta.width, meta.height, cond.shortSide);
  const tokensPerFrame = seedTokensPerFrame(dims.width, dims.height);
  const common = {
    status: 'send' as const,
    width: dims.width,
    height: dims.height,
    shortSide: Math.min(dims.width, dims.height),
    tokensPerFrame,
  };
  if (cond.kind === 'count') {
    const sel = selectTimeUniform(meta.timestamps, cond.nFrames);
    return {
      ...common,
      indices: sel.indices,
      timestamps: sel.indices.map((i) => meta.timestamps[i]),
      capped: sel.capped,
      cappedCtx: null,
      nGrid: null,
      nMax: null,
    };
  }
  const nMax = fpsFrameCap(tokensPerFrame);
  const sel = selectFpsGrid(meta.timestamps, cond.fps, nMax);
  return {
    ...common,
    indices: sel.indices,
    timestamps: sel.indices.map((i) => meta.timestamps[i]),
    capped: null,
    cappedCtx: sel.cappedCtx,
    nGrid: sel.nGrid,
    nMax,
  };
}
