// A target response → LongVALE events (SPEC-AVTIME §4, seed Part III §7 and "Time representation").

import { MAX_PCT, MERGE_GAP_PCT, MERGE_RATIO_GT } from './constants';
import { sequenceMatcherRatioExceeds } from './difflib';

export interface PctEvent {
  start_pct: number;
  end_pct: number;
  caption: string;
}

export interface ParsedEvent extends PctEvent {
  /** 1-based line of the response it came from. */
  line: number;
}

export type WarningReason = 'not_an_event' | 'start_after_end';
export interface LineWarning {
  line: number;
  text: string;
  reason: WarningReason;
}

// Matched against the trimmed line. `s`: like Python's `.` (everything but \n), so U+2028 stays in a caption.
const EVENT_LINE = /^From ([0-9]{2}) to ([0-9]{2}), (.+)$/su;
// Python's str.strip() whitespace (str.isspace), not JS trim(): U+FEFF is kept, U+001C–U+001F and U+0085 go.
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g');
const PY_SPACE_CHAR = new RegExp(`^${PY_SPACE}$`);

/** Lines split at \n, \r\n or \r; numbered from 1. Empty lines (after trimming) are neither events nor warnings. */
export function parseEventLines(response: string): { events: ParsedEvent[]; warnings: LineWarning[] } {
  const events: ParsedEvent[] = [];
  const warnings: LineWarning[] = [];
  // Without a "\r" the three line ends are one: a plain split then gives the same lines, cheaper.
  (response.includes('\r') ? response.split(/\r\n|\r|\n/) : response.split('\n')).forEach((raw, k) => {
    const text = raw.length > 0 && !PY_SPACE_CHAR.test(raw[0]) && !PY_SPACE_CHAR.test(raw[raw.length - 1]) ? raw : raw.replace(PY_STRIP, '');
    if (text === '') return;
    const line = k + 1;
    const m = EVENT_LINE.exec(text);
    if (!m) return void warnings.push({ line, text, reason: 'not_an_event' });
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (start > end) return void warnings.push({ line, text, reason: 'start_after_end' });
    events.push({ start_pct: start, end_pct: end, caption: m[3], line });
  });
  return { events, warnings };
}

/** Stable sort by (start, end): equal keys keep response order. */
export function sortEvents<T extends PctEvent>(events: readonly T[]): T[] {
  return [...events].sort((a, b) => a.start_pct - b.start_pct || a.end_pct - b.end_pct);
}

/**
 * The official adjacent merge, left to right over sorted events: next merges into current iff
 * `ratio(current.caption, next.caption) > 0.98` and `next.start − current.end ∈ [−1, 1]`; current keeps its
 * caption and start, its end becomes next.end (SPEC-AVTIME §4). That is upstream LongVALE's
 * `merge_similar_sentences` (longvalellm/eval/metric.py), followed even where next ends inside current
 * (then the merged event is shorter): the port is "pinned official".
 */
export function mergeAdjacent<T extends PctEvent>(sorted: readonly T[]): T[] {
  const out: T[] = [];
  for (const next of sorted) {
    const cur = out[out.length - 1];
    if (cur !== undefined && mergesInto(cur, next)) cur.end_pct = next.end_pct;
    else out.push({ ...next });
  }
  return out;
}

function mergesInto(cur: PctEvent, next: PctEvent): boolean {
  const gap = next.start_pct - cur.end_pct;
  // The gap test first: it is cheap, and both tests are pure, so the order cannot change the answer.
  return gap >= MERGE_GAP_PCT.min && gap <= MERGE_GAP_PCT.max && sequenceMatcherRatioExceeds(cur.caption, next.caption, MERGE_RATIO_GT);
}

/** ⌊x / 100⌋ for a safe non-negative integer x, exact (the float quotient is corrected by the remainder). */
function floorDiv100(x: number): number {
  let q = Math.floor(x / 100);
  const r = x - q * 100;
  if (r < 0) q -= 1;
  else if (r >= 100) q += 1;
  return q;
}

/** Largest duration whose products pct·D stay exact doubles. */
export const MAX_DURATION_MS = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/**
 * Percent buckets → half-open ms: `start_ms = ⌊start·D/100⌋`, `end_ms = ⌈(end+1)·D/100⌉`, clamped to [0, D].
 * Exact in integers (not `floor((start/100)·D)` in floats, which gives 28 for 29 % of 100 ms).
 */
export function pctToMs(startPct: number, endPct: number, durationMs: number): { start_ms: number; end_ms: number } {
  if (!Number.isSafeInteger(durationMs) || durationMs <= 0 || durationMs > MAX_DURATION_MS) {
    throw new Error(`duration_ms ${durationMs} is not an integer in [1, ${MAX_DURATION_MS}]`);
  }
  for (const p of [startPct, endPct]) {
    if (!Number.isInteger(p) || p < 0 || p > MAX_PCT) throw new Error(`percent ${p} is not an integer in [0, ${MAX_PCT}]`);
  }
  if (startPct > endPct) throw new Error(`start ${startPct} % is after end ${endPct} %`);
  const start = floorDiv100(startPct * durationMs);
  const endNum = (endPct + 1) * durationMs;
  const endFloor = floorDiv100(endNum);
  const end = endFloor * 100 === endNum ? endFloor : endFloor + 1;
  return { start_ms: Math.min(Math.max(start, 0), durationMs), end_ms: Math.min(Math.max(end, 0), durationMs) };
}
