// Which (video, condition) pairs are NA and which reuse another condition's answer (SPEC §2.2, §2.4).
import type { Condition } from './conditions';
import { TOO_SHORT_MAX_FRAMES } from './constants';

/** too_short videos are NA for every fps condition and every frame-count condition with N > 32. */
export function isNotApplicable(cond: Condition, tooShort: boolean): boolean {
  if (!tooShort) return false;
  if (cond.kind === 'fps') return true;
  return cond.kind === 'count' && cond.nFrames > TOO_SHORT_MAX_FRAMES;
}

/** The seed's stored-480 rule: `v_32_s448` reuses the `v_32` answer of the same item. */
export const REUSE_RULES: readonly { condition: string; storedShortSide: number; from: string }[] = [
  { condition: 'v_32_s448', storedShortSide: 480, from: 'v_32' },
];

/** The condition whose row this one copies for a video of this stored short side, or null. */
export function reuseSource(conditionName: string, storedShortSide: number): string | null {
  const rule = REUSE_RULES.find((r) => r.condition === conditionName && r.storedShortSide === storedShortSide);
  return rule ? rule.from : null;
}
