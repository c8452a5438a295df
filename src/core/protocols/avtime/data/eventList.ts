// The latest event list of a row (SPEC-AVTIME-DATA §1, §4): assistant messages scanned from the end; a content
// parsed whole as JSON, else its last ```json fenced block; an array, or an object with an `events` array.
import type { Message } from './rowSchema';
import { parseBoundedJson } from '../../../io/boundedJson';

// Whitespace is spelled out (not \s) so a second implementation in another language cuts the same block.
const FENCE = /```json[ \t\r\n]*([\s\S]*?)```/g;

/** The event list a content holds, or null when it holds none (or an empty one). */
export function eventListOf(content: string): unknown[] | null {
  const whole = parseJson(content);
  const fromWhole = whole.ok ? listIn(whole.value) : null;
  if (fromWhole) return fromWhole;
  let last: string | null = null;
  for (const m of content.matchAll(FENCE)) last = m[1];
  if (last === null) return null;
  const fenced = parseJson(last);
  return fenced.ok ? listIn(fenced.value) : null;
}

/** Scans assistant messages from the last to the first; the first non-empty event list found. */
export function latestEventList(messages: readonly Message[] | undefined): unknown[] | null {
  for (const m of [...(messages ?? [])].reverse()) {
    if (m.role !== 'assistant' || typeof m.content !== 'string') continue;
    const list = eventListOf(m.content);
    if (list) return list;
  }
  return null;
}

function listIn(v: unknown): unknown[] | null {
  const list = Array.isArray(v)
    ? v
    : v !== null && typeof v === 'object' && Array.isArray((v as { events?: unknown }).events)
      ? (v as { events: unknown[] }).events
      : null;
  return list && list.length > 0 ? list : null;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseBoundedJson(text) };
  } catch {
    return { ok: false };
  }
}
