// The caption viewer's words and positions (no DOM): seconds as text, a span as percentages of the video, a clip's
// boundary, the cut's detectors and its degradation (said the one way: core/clips/degraded.ts).
import { degradedText } from '../../../../src/core/clips/degraded';
import type { PickerVideo, ViewerClip, ViewerCut } from '../../../../src/core/protocols/caption/viewerTypes';

export function secondsText(t: number): string {
  return `${t.toFixed(2)} s`;
}

export function clipLabel(c: Pick<ViewerClip, 'index' | 'source' | 'confidence'>): string {
  return `clip ${c.index}, boundary: ${boundaryText(c)}`;
}

/** A clip's boundary on the timeline: its source, and its confidence when the cutter gave one. */
export function boundaryText(c: Pick<ViewerClip, 'source' | 'confidence'>): string {
  return c.confidence === null ? c.source : `${c.source} ${c.confidence.toFixed(2)}`;
}

/** A row of the boundary list: the clip, its boundary, its span. */
export function boundaryItemText(c: Pick<ViewerClip, 'index' | 'source' | 'confidence' | 'start' | 'end'>): string {
  return `${clipLabel(c)} · ${secondsText(c.start)}–${secondsText(c.end)}`;
}

/** The header's line of detectors: "Detectors: asr unavailable · scene ffmpeg · audio_events unavailable". */
export function detectorsText(cut: Pick<ViewerCut, 'detectors'>): string {
  return `Detectors: ${cut.detectors.map((d) => `${d.channel} ${d.detector}`).join(' · ')}`;
}

/** The header's warning for a degraded cut, or '' when it is not: "Cut degraded (no asr, audio_events): reason". */
export function cutDegradedText(cut: Pick<ViewerCut, 'unavailable' | 'degraded' | 'degradedReason'>): string {
  const said = degradedText(cut.unavailable, cut.degraded);
  if (!said) return '';
  return `Cut ${said}${cut.degradedReason ? `: ${cut.degradedReason}` : ''}`;
}

/** A picker option: the stem, and its state (and the backend that made it) when the run type has read it. */
export function videoOptionText(v: PickerVideo): string {
  const by = v.backend ? ` [${v.backend}]` : '';
  return v.state ? `${v.stem} — ${v.state}${by}${v.state === 'failed' && v.reason ? `: ${v.reason}` : ''}` : v.stem;
}

/** `[start, end]` as left and width in percent of `duration`, clamped to the timeline. */
export function spanPercent(start: number, end: number, duration: number): { left: number; width: number } {
  if (!(duration > 0)) return { left: 0, width: 0 };
  const clamp = (x: number) => Math.min(Math.max(x, 0), duration);
  const a = clamp(start);
  const b = clamp(Math.max(end, start));
  return { left: (a / duration) * 100, width: ((b - a) / duration) * 100 };
}
