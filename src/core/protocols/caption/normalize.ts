// SPEC-AVTIME-DATA §3's normalization of one clip's events onto the full video's timeline, in the answer's order:
// (1) clamp into [0, d]; (2) an event with end ≤ start folds into the previous kept event (caption appended after
// one space, the previous end becomes max(prev.end, ev.start)), or, with none kept yet, becomes [0, d]; (3) the first
// kept start becomes 0 and the last kept end d; (4) shift by the clip's start and round to milliseconds. No sorting,
// no closing of other gaps or overlaps: the seed leaves those as a quality issue to audit.
import type { ClipEvent } from './answer';

/** A clip's place on the video's timeline (segments.json's start_sec and end_sec). */
export interface ClipSpan {
  start_sec: number;
  end_sec: number;
}

/** Milliseconds, half up: floor(t·1000 + 0.5) / 1000. */
export function roundMs(t: number): number {
  return Math.floor(t * 1000 + 0.5) / 1000;
}

const clamp = (t: number, d: number) => Math.min(Math.max(t, 0), d);

/** The clip's events on the video's timeline; `events` non-empty (a valid answer). */
export function normalizeClipEvents(events: readonly ClipEvent[], clip: ClipSpan): ClipEvent[] {
  const d = clip.end_sec - clip.start_sec;
  const kept: ClipEvent[] = [];
  for (const ev of events) {
    const start = clamp(ev.start_sec, d);
    const end = clamp(ev.end_sec, d);
    const prev = kept[kept.length - 1];
    if (end > start) kept.push({ start_sec: start, end_sec: end, caption: ev.caption });
    else if (prev) {
      prev.caption = `${prev.caption} ${ev.caption}`;
      prev.end_sec = Math.max(prev.end_sec, start);
    } else kept.push({ start_sec: 0, end_sec: d, caption: ev.caption });
  }
  if (kept.length === 0) throw new Error('normalizeClipEvents: no events (a valid answer has at least one)');
  kept[0].start_sec = 0;
  kept[kept.length - 1].end_sec = d;
  return kept.map((e) => ({ start_sec: roundMs(e.start_sec + clip.start_sec), end_sec: roundMs(e.end_sec + clip.start_sec), caption: e.caption }));
}

/** A video's captions_merged.json content: its clips in order, each clip's events normalized. */
export function mergeVideoCaptions(clips: readonly { span: ClipSpan; events: readonly ClipEvent[] }[]): ClipEvent[] {
  return clips.flatMap((c) => normalizeClipEvents(c.events, c.span));
}
