// Resolution (SPEC §2.3) and the seed's token formula for the fps cap (SPEC §2.2).
import { MAX_IMAGES, TEXT_RESERVE, TOKEN_BUDGET } from './constants';

export interface Dims {
  width: number;
  height: number;
}

/**
 * Target short side S (null = storage, no resize). Frames already at or below S keep their size.
 * Round half up in exact integer arithmetic: floating point gets e.g. 830×480 at 168 wrong.
 */
export function resizeDims(width: number, height: number, shortSide: number | null): Dims {
  if (shortSide === null || shortSide >= Math.min(width, height)) return { width, height };
  if (width >= height) return { width: Math.floor((2 * width * shortSide + height) / (2 * height)), height: shortSide };
  return { width: shortSide, height: Math.floor((2 * height * shortSide + width) / (2 * width)) };
}

/** The seed's tokens per frame: `ceil(w/32)·ceil(h/32) + 6`. Used for the cap, never for prediction. */
export function seedTokensPerFrame(width: number, height: number): number {
  return Math.ceil(width / 32) * Math.ceil(height / 32) + 6;
}

/** `N_max = min(1024, floor((58000 − 1500) / tokens_per_frame))`: 582 for 16:9 at 224. */
export function fpsFrameCap(tokensPerFrame: number): number {
  return Math.min(MAX_IMAGES, Math.floor((TOKEN_BUDGET - TEXT_RESERVE) / tokensPerFrame));
}
