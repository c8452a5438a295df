// The facts a retained row must give (SPEC-AVTIME-DATA §1): a non-empty id, a video reference, a positive
// duration and a positive event count. A row that lacks one is a problem, named with the field and what was expected.
import { durationMs, videoRef } from '../rowFacts';
import { latestEventList } from '../eventList';
import type { SourceRow } from '../rowSchema';

export interface RowFacts {
  id: string;
  video: string;
  duration_ms: number;
  event_count: number;
}

export function rowFacts(row: SourceRow): { ok: true; facts: RowFacts } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const id = typeof row.id === 'string' && row.id !== '' ? row.id : null;
  if (id === null) problems.push('id: missing or empty; expected a non-empty string');
  const video = videoRef(row);
  if (video === null) problems.push('metadata.input_video / videos[0]: no video reference; expected a non-empty string');
  const duration = durationMs(row);
  if (!duration.ok) problems.push(duration.why);
  const count = eventCount(row);
  if (typeof count === 'string') problems.push(count);
  if (problems.length || id === null || video === null || !duration.ok || typeof count === 'string') return { ok: false, problems };
  return { ok: true, facts: { id, video, duration_ms: duration.ms, event_count: count } };
}

/** `metadata.event_count` when present (then it must be a positive integer), else the latest event list's length. */
function eventCount(row: SourceRow): number | string {
  const n = row.metadata?.event_count;
  if (n !== undefined && n !== null) return Number.isInteger(n) && n > 0 ? n : `metadata.event_count: ${n}; expected a positive integer`;
  const list = latestEventList(row.messages);
  return list ? list.length : 'no event count: metadata.event_count is missing and no assistant message holds a parseable non-empty event list';
}
