// A row's events as percent buckets for the SFT answer (SPEC-AVTIME-DATA §4 [decided]): the latest assistant
// message holding a JSON event list (§1's scan) or `From XX to YY, caption` lines; JSON events by
// start_pct/end_pct, else start_ms/end_ms over the row's duration. Then drop, de-duplicate, sort.
import { parseEventLines, sortEvents, type PctEvent } from '../../events';
import { eventListOf } from '../eventList';
import { msToPct, toBuckets } from '../buckets';
import type { Message } from '../rowSchema';

export interface RowEvents {
  events: PctEvent[];
  dropped: { no_caption: number; bad_time: number };
  deduplicated: number;
}

// ASCII whitespace only: what keeps an answer one line per event (the line protocol splits at \n and \r).
const SPACE_RUN = /[ \t\n\r\f\v]+/g;
export const normalizeCaption = (c: string): string => (needsNormalizing(c) ? c.replace(SPACE_RUN, ' ').replace(/^ | $/g, '') : c);

/** Most captions are clean already: one scan for \t \n \r \f \v, two spaces in a row, or a space at either end. */
function needsNormalizing(c: string): boolean {
  const n = c.length;
  if (n > 0 && (c.charCodeAt(0) === 0x20 || c.charCodeAt(n - 1) === 0x20)) return true;
  for (let i = 0; i < n; i++) {
    const ch = c.charCodeAt(i);
    if ((ch >= 0x09 && ch <= 0x0d) || (ch === 0x20 && c.charCodeAt(i + 1) === 0x20)) return true;
  }
  return false;
}

type Found = { kind: 'json'; list: unknown[] } | { kind: 'lines'; events: PctEvent[]; reversed: number };

function latestEvents(messages: readonly Message[] | undefined): Found | null {
  for (const m of [...(messages ?? [])].reverse()) {
    if (m.role !== 'assistant' || typeof m.content !== 'string') continue;
    const list = eventListOf(m.content);
    if (list) return { kind: 'json', list };
    const { events, warnings } = parseEventLines(m.content);
    if (events.length) return { kind: 'lines', events, reversed: warnings.filter((w) => w.reason === 'start_after_end').length };
  }
  return null;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** One JSON event → buckets, or why it is dropped. */
function jsonEvent(e: unknown, durationMs: number): PctEvent | 'no_caption' | 'bad_time' {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return 'bad_time';
  const o = e as Record<string, unknown>;
  const caption = typeof o.caption === 'string' ? normalizeCaption(o.caption) : '';
  let span: { start_pct: number; end_pct: number } | null = null;
  if (o.start_pct !== undefined || o.end_pct !== undefined) span = isNum(o.start_pct) && isNum(o.end_pct) ? toBuckets(o.start_pct, o.end_pct) : null;
  else if (isNum(o.start_ms) && isNum(o.end_ms)) span = toBuckets(msToPct(o.start_ms, durationMs), msToPct(o.end_ms, durationMs));
  if (span === null) return 'bad_time';
  if (caption === '') return 'no_caption';
  return { start_pct: span.start_pct, end_pct: span.end_pct, caption };
}

/** null when no assistant message holds an event list or event lines. */
export function rowEvents(messages: readonly Message[] | undefined, durationMs: number): RowEvents | null {
  const found = latestEvents(messages);
  if (!found) return null;
  const dropped = { no_caption: 0, bad_time: 0 };
  const kept: PctEvent[] = [];
  if (found.kind === 'json') {
    for (const e of found.list) {
      const r = jsonEvent(e, durationMs);
      if (typeof r === 'string') dropped[r]++;
      else kept.push(r);
    }
  } else {
    dropped.bad_time += found.reversed;
    for (const e of found.events) {
      const caption = normalizeCaption(e.caption);
      if (caption === '') dropped.no_caption++;
      else kept.push({ start_pct: e.start_pct, end_pct: e.end_pct, caption });
    }
  }
  const seen = new Set<string>();
  const unique = kept.filter((e) => {
    const key = `${e.start_pct} ${e.end_pct} ${e.caption}`; // buckets are integers: the first two spaces delimit
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return { events: sortEvents(unique), dropped, deduplicated: kept.length - unique.length };
}

export const answerLine = (e: PctEvent): string => `From ${String(e.start_pct).padStart(2, '0')} to ${String(e.end_pct).padStart(2, '0')}, ${e.caption}`;
