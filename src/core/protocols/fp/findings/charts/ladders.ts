// The three ladders of the sweep (SPEC §2) as the findings card draws them: each step's condition and its
// visual tokens. Conditions are parsed, not listed, so a new ladder step shows up without a code change.
// Pure; the host computes the points and the webview only draws them (rules/ is Node-typed).
import { parseCondition, type Condition } from '../../rules/conditions';
import { qwenImageTokens } from '../../rules/qwenTokens';
import { resizeDims } from '../../rules/resize';
import type { BenchmarkFindings } from '../types';
import { LADDER_NAMES, type LadderPoint } from './viewModel';

export const LADDERS = LADDER_NAMES;
export type Ladder = (typeof LADDERS)[number];

/** The short side the frame-count and frame-rate ladders hold fixed, and the frame count the resolution ladder holds. */
const LADDER_SHORT_SIDE = 224;
const LADDER_FRAMES = 32;
/**
 * The frame the estimate assumes: 16:9 stored at 854×480 (the protocol's common storage size). Visual tokens
 * depend on each video's shape; one nominal shape keeps the x axis a property of the condition.
 */
export const NOMINAL_FRAME = { width: 854, height: 480 } as const;

/** The ladders a condition is a step of (v_32_s224 is on two: resolution and frame count). */
export function laddersOf(name: string): Ladder[] {
  let c: Condition;
  try {
    c = parseCondition(name);
  } catch {
    return [];
  }
  const out: Ladder[] = [];
  if (c.kind === 'count' && c.nFrames === LADDER_FRAMES && c.shortSide !== null) out.push('resolution');
  if (c.kind === 'count' && c.shortSide === LADDER_SHORT_SIDE) out.push('frame count');
  if (c.kind === 'fps' && c.shortSide === LADDER_SHORT_SIDE) out.push('frame rate');
  return out;
}

/** Tokens vLLM charges one nominal frame at short side S (SPEC §2.5: Qwen3-VL's smart resize, +2 wrap tokens). */
export function tokensPerNominalFrame(shortSide: number | null): number {
  const d = resizeDims(NOMINAL_FRAME.width, NOMINAL_FRAME.height, shortSide);
  return qwenImageTokens(d.width, d.height);
}

/**
 * Visual tokens of a condition: frames × tokens per nominal frame. `meanFrames` is the mean frames the answered
 * rows really sent (the results' n_frames); without it a frame-count condition uses its N and a frame-rate
 * condition has no estimate (its frames depend on each video's length).
 */
export function visualTokens(name: string, meanFrames?: number | null): number | null {
  let c: Condition;
  try {
    c = parseCondition(name);
  } catch {
    return null;
  }
  if (c.kind === 'blind') return 0;
  const frames = meanFrames ?? (c.kind === 'count' ? c.nFrames : null);
  if (frames === null || !(frames > 0)) return null;
  return Math.round(frames * tokensPerNominalFrame(c.shortSide));
}

/** The order of a step on a ladder: its short side (resolution), frames (frame count) or fps (frame rate). */
export function stepOrder(name: string, ladder: Ladder): number {
  const c = parseCondition(name);
  if (c.kind === 'fps') return c.fps;
  if (c.kind === 'count') return ladder === 'resolution' ? (c.shortSide ?? 0) : c.nFrames;
  return 0;
}

/**
 * The card's points for one benchmark: each ladder step with an answered cell and a token estimate, in ladder
 * order. `meanFrames` maps a condition to the mean frames its answered rows sent (absent: nominal).
 */
export function ladderPoints(b: BenchmarkFindings, meanFrames: Readonly<Record<string, number>> = {}): LadderPoint[] {
  const out: LadderPoint[] = [];
  for (const [condition, cell] of Object.entries(b.cells)) {
    const ladders = laddersOf(condition);
    if (!ladders.length || cell.acc === null || cell.lo === null || cell.hi === null) continue;
    const tokens = visualTokens(condition, meanFrames[condition]);
    if (tokens === null || tokens <= 0) continue;
    for (const ladder of ladders)
      out.push({ ladder, condition, tokens, acc: cell.acc, lo: cell.lo, hi: cell.hi, n: cell.n, order: stepOrder(condition, ladder) });
  }
  return out.sort((x, y) => LADDERS.indexOf(x.ladder) - LADDERS.indexOf(y.ladder) || x.order - y.order);
}
