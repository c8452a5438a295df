// The Gemini path's looser reading and normalization (seed §3 "Gemini fallback": "the Gemini normalizer is also
// intentionally looser"; SPEC-AVTIME-DATA §3b: the exact looseness is ours, documented in docs/CAPTION.md). Beside
// the Qwen path (answer.ts + normalize.ts), never mixed with it: a clip JSON, a video's signature and its merged
// captions name the normalizer that made them. Looser than the Qwen path in what it accepts and in what it fixes:
//   reading: the JSON text as answerJsonText finds it; an array, an object with `events`, or one event object; a
//     time may be a number, a numeric string or "[h:]mm:ss[.fff]"; `start`/`end` and `text`/`description` are read
//     when `start_sec`/`end_sec`/`caption` are absent; an event that still cannot be read is skipped, not fatal
//     (the answer fails only when no event is left);
//   normalizing (per clip of length d): clamp into [0, d]; a reversed pair is swapped; an event of zero length is
//     dropped unless it is the only one (then the whole clip); no pinning of the first start or the last end, no
//     folding; shift by the clip's start and round to milliseconds (normalize.ts's roundMs).
import { answerEventList, cleanCaption, type ClipEvent, type ParsedAnswer } from './answer';
import { roundMs, type ClipSpan } from './normalize';

export const QWEN_NORMALIZER = 'qwen-seed-v1';
export const GEMINI_NORMALIZER = 'gemini-loose-v1';

/** A time in seconds from a number, a numeric string or "[h:]mm:ss[.fff]"; null when it is none of those. */
export function looseSeconds(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const s = value.trim().replace(/s$/i, '');
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) return Number(s);
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(s);
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

function looseEvent(value: unknown): ClipEvent | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const e = value as Record<string, unknown>;
  const start = looseSeconds(e.start_sec ?? e.start);
  const end = looseSeconds(e.end_sec ?? e.end);
  const text = [e.caption, e.text, e.description].find((t) => typeof t === 'string');
  const caption = typeof text === 'string' ? cleanCaption(text) : '';
  if (start === null || end === null || !caption) return null;
  return { start_sec: start, end_sec: end, caption };
}

/** The events of a Gemini answer, read loosely; invalid only when no event can be read. */
export function parseGeminiAnswer(content: string): ParsedAnswer {
  const read = answerEventList(content);
  if (!read.ok) return read;
  // One event object on its own is read as a list of one.
  const list = read.list ?? [read.value];
  const events = list.map(looseEvent).filter((e): e is ClipEvent => e !== null);
  if (events.length === 0) return { ok: false, reason: 'no event of the answer has a time span and a caption' };
  return { ok: true, events };
}

const clamp = (t: number, d: number) => Math.min(Math.max(t, 0), d);

/** A clip's events on the video's timeline, the loose way; `events` non-empty. */
export function normalizeGeminiClipEvents(events: readonly ClipEvent[], clip: ClipSpan): ClipEvent[] {
  if (events.length === 0) throw new Error('normalizeGeminiClipEvents: no events (a valid answer has at least one)');
  const d = clip.end_sec - clip.start_sec;
  const spans = events.map((ev) => {
    const a = clamp(ev.start_sec, d);
    const b = clamp(ev.end_sec, d);
    return { start_sec: Math.min(a, b), end_sec: Math.max(a, b), caption: ev.caption };
  });
  let kept = spans.filter((e) => e.end_sec > e.start_sec);
  if (kept.length === 0) kept = [{ start_sec: 0, end_sec: d, caption: spans.map((e) => e.caption).join(' ') }];
  return kept.map((e) => ({ start_sec: roundMs(e.start_sec + clip.start_sec), end_sec: roundMs(e.end_sec + clip.start_sec), caption: e.caption }));
}
