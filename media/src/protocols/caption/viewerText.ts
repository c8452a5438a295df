// The caption viewer's words and positions (no DOM): seconds as text, a span as percentages of the video.
import type { PickerVideo, ViewerClip } from '../../../../src/core/protocols/caption/viewerTypes';

export function secondsText(t: number): string {
  return `${t.toFixed(2)} s`;
}

export function clipLabel(c: Pick<ViewerClip, 'index' | 'source' | 'confidence'>): string {
  return `clip ${c.index}, boundary: ${c.source}${c.confidence === null ? '' : ` (${c.confidence})`}`;
}

/** A picker option: the stem, and its state when the run type has read it. */
export function videoOptionText(v: PickerVideo): string {
  return v.state ? `${v.stem} — ${v.state}${v.state === 'failed' && v.reason ? `: ${v.reason}` : ''}` : v.stem;
}

/** `[start, end]` as left and width in percent of `duration`, clamped to the timeline. */
export function spanPercent(start: number, end: number, duration: number): { left: number; width: number } {
  if (!(duration > 0)) return { left: 0, width: 0 };
  const clamp = (x: number) => Math.min(Math.max(x, 0), duration);
  const a = clamp(start);
  const b = clamp(Math.max(end, start));
  return { left: (a / duration) * 100, width: ((b - a) / duration) * 100 };
}
