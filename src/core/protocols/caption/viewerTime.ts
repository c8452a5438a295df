// Time on a video's timeline against its clips, for the caption viewer's model and its webview (no Node, no zod:
// the webview bundle imports this file).

/** A clip's span on the video's timeline, seconds. */
export interface ClipSpan {
  start: number;
  end: number;
}

/** Where time `t` (seconds on the video's timeline) falls: the clip holding it and the offset into it. */
export function locate(clips: readonly ClipSpan[], t: number): { clip: number; offset: number } {
  if (!clips.length) return { clip: -1, offset: 0 };
  // The last clip whose start is at or before t; a time before the first clip is its start, one past the end its last instant.
  let i = 0;
  while (i + 1 < clips.length && clips[i + 1].start <= t) i++;
  const c = clips[i];
  const offset = Math.min(Math.max(t - c.start, 0), c.end - c.start);
  return { clip: i, offset };
}

/** The time on the video's timeline of `offset` seconds into clip `clip` (the player's position). */
export function timelineTime(clips: readonly Pick<ClipSpan, 'start'>[], clip: number, offset: number): number {
  return (clips[clip]?.start ?? 0) + offset;
}
