// A caption answer as SPEC-AVTIME-DATA §3 reads it: the content after the last `</think>` (a server without a
// reasoning parser returns the Thinking model's reasoning in `content`); the last ```json fenced block if there is
// one, else the text from the first `[` or `{` to the last `]` or `}`; an array, or an object with an `events`
// array; each event with finite numeric `start_sec`, `end_sec` and a non-empty caption (trimmed, inner runs of
// whitespace made one space). Anything else is an invalid answer, which the caller retries within its budget.
import { parseBoundedJson } from '../../io/boundedJson';

/** One event as the model gave it, in seconds from the clip's start. */
export interface ClipEvent {
  start_sec: number;
  end_sec: number;
  caption: string;
}

export type ParsedAnswer = { ok: true; events: ClipEvent[] } | { ok: false; reason: string };

const THINK_END = '</think>';
const FENCE_OPEN = '```json';

/** The JSON text the answer carries, or null when it has none. */
export function answerJsonText(content: string): string | null {
  const think = content.lastIndexOf(THINK_END);
  const text = think >= 0 ? content.slice(think + THINK_END.length) : content;
  const fence = text.lastIndexOf(FENCE_OPEN);
  if (fence >= 0) {
    const body = text.slice(fence + FENCE_OPEN.length);
    const close = body.indexOf('```');
    return (close >= 0 ? body.slice(0, close) : body).trim();
  }
  const first = text.search(/[[{]/);
  const last = Math.max(text.lastIndexOf(']'), text.lastIndexOf('}'));
  return first >= 0 && last > first ? text.slice(first, last + 1) : null;
}

/** Trimmed, every run of whitespace inside made one space. */
export function cleanCaption(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

function eventAt(value: unknown, i: number): ClipEvent | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `event ${i + 1} is not an object`;
  const e = value as Record<string, unknown>;
  for (const key of ['start_sec', 'end_sec'] as const) {
    if (typeof e[key] !== 'number' || !Number.isFinite(e[key])) return `event ${i + 1}: ${key} is not a finite number (${JSON.stringify(e[key])})`;
  }
  const caption = typeof e.caption === 'string' ? cleanCaption(e.caption) : '';
  if (!caption) return `event ${i + 1}: caption is missing or empty`;
  return { start_sec: e.start_sec as number, end_sec: e.end_sec as number, caption };
}

/**
 * The JSON of an answer (answerJsonText's, parsed within the bounds) and its list of events: the value itself when
 * it is an array, an object's `events` array, else null (what to make of that is the reader's call).
 */
export function answerEventList(content: string): { ok: true; value: unknown; list: unknown[] | null } | { ok: false; reason: string } {
  const json = answerJsonText(content);
  if (json === null) return { ok: false, reason: 'no JSON array or object in the answer' };
  let value: unknown;
  try {
    value = parseBoundedJson(json);
  } catch (err) {
    return { ok: false, reason: `the answer's JSON does not parse: ${(err as Error).message}` };
  }
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null && Array.isArray((value as { events?: unknown }).events)
      ? (value as { events: unknown[] }).events
      : null;
  return { ok: true, value, list };
}

export function parseCaptionAnswer(content: string): ParsedAnswer {
  const read = answerEventList(content);
  if (!read.ok) return read;
  const list = read.list;
  if (!list) return { ok: false, reason: 'the answer is neither an array nor an object with an "events" array' };
  if (list.length === 0) return { ok: false, reason: 'the answer has no events' };
  const events: ClipEvent[] = [];
  for (const [i, v] of list.entries()) {
    const e = eventAt(v, i);
    if (typeof e === 'string') return { ok: false, reason: e };
    events.push(e);
  }
  return { ok: true, events };
}
