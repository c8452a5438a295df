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

/**
 * A picker option: the stem, and its state (and the backend that made it) when the run type has read it. `captioned`:
 * the viewer shows this video's captions (its captions_merged.json is there): a video with no run record here (state
 * pending, or no progress) then says "captioned", never "pending" beside the captions it shows.
 */
export function videoOptionText(v: PickerVideo, captioned = false): string {
  const by = v.backend ? ` [${v.backend}]` : '';
  const state = captioned && (v.state === null || v.state === 'pending') ? 'captioned' : v.state;
  return state ? `${v.stem} — ${state}${by}${state === 'failed' && v.reason ? `: ${v.reason}` : ''}` : v.stem;
}

/**
 * The player's position in the words of both clocks: the clip's (what the player's own controls show, "0:01 / 0:02")
 * and the video's (the timeline's), each labelled, so the two never read as disagreeing.
 */
export function positionText(at: { clip: number; clips: number; clipTime: number; clipDuration: number; time: number; duration: number }): string {
  return (
    `clip ${at.clip + 1} of ${at.clips}: ${secondsText(at.clipTime)} of ${secondsText(at.clipDuration)} in the clip · ` +
    `${secondsText(at.time)} of ${secondsText(at.duration)} in the video`
  );
}

/** What a clip block on the timeline says ("scene 0.90 #2"), in words: the legend under the timeline. */
export const BOUNDARY_LEGEND: readonly [term: string, meaning: string][] = [
  ['start', "the video's start"],
  ['scene', 'a shot change (its score from 0 to 1)'],
  ['soft', 'a split of a long segment (at a pause when there is one)'],
  ['#n', "the clip's number"],
];

/** `[start, end]` as left and width in percent of `duration`, clamped to the timeline. */
export function spanPercent(start: number, end: number, duration: number): { left: number; width: number } {
  if (!(duration > 0)) return { left: 0, width: 0 };
  const clamp = (x: number) => Math.min(Math.max(x, 0), duration);
  const a = clamp(start);
  const b = clamp(Math.max(end, start));
  return { left: (a / duration) * 100, width: ((b - a) / duration) * 100 };
}
