// What the stand-in Thinking model answers to a caption request: a <think> block, then one to three
// {start_sec, end_sec, caption} events inside the clip, written as a bare JSON array, a ```json fenced block or an
// {"events": [...]} object (the three shapes SPEC-AVTIME-DATA §3's parser takes). Pure and deterministic from the
// clip's path, the prompt and the clip's duration, so a test recomputes the answer with these functions.
import { rngFrom, seedOf, type Rng } from './random';

export interface CaptionEvent {
  start_sec: number;
  end_sec: number;
  caption: string;
}

const SEEN = ['a red screen', 'a green screen', 'a blue screen', 'a white square moving left to right', 'a dark frame', 'a bright flash'];
const HEARD = ['a low tone', 'a high tone', 'a rising tone', 'silence', 'a steady hum', 'a short repeating beep'];

/** Tenths of a second, as a model writes them. */
const tenth = (t: number) => Math.round(t * 10) / 10;

/** 1–3 events (within `min`..`max`) covering parts of [0, d] in order; the first may start a little late. */
export function captionEvents(clipPath: string, prompt: string, durationS: number, min = 1, max = 3): CaptionEvent[] {
  const rng = rngFrom(seedOf('caption', clipPath, prompt));
  const n = rng.int(min, max);
  const d = Math.floor(durationS * 10) / 10;
  const cuts = Array.from({ length: n - 1 }, () => tenth(rng.next() * d)).sort((a, b) => a - b);
  // Now and then the first event starts a little late (never after the next cut): normalization pins it to 0.
  const late = rng.next() < 0.3 ? Math.min(tenth(Math.min(0.4, d / 4)), cuts[0] ?? d) : 0;
  const bounds = [late, ...cuts, d];
  const out: CaptionEvent[] = [];
  for (let i = 0; i < n; i++) out.push({ start_sec: bounds[i], end_sec: bounds[i + 1], caption: caption(rng) });
  return out;
}

function caption(rng: Rng): string {
  const seen = rng.pick(SEEN);
  const heard = rng.pick(HEARD);
  return rng.next() < 0.5 ? `The clip shows ${seen} while ${heard} is heard.` : `${heard[0].toUpperCase()}${heard.slice(1)} accompanies ${seen}.`;
}

/** The reasoning before </think>: a few deterministic sentences. */
export function captionThinking(clipPath: string, prompt: string): string {
  const rng = rngFrom(seedOf('captionThink', clipPath, prompt));
  const words = ['I', 'look', 'at', 'the', 'frames', 'first', 'and', 'then', 'listen', 'to', 'the', 'audio', 'track'];
  return Array.from({ length: 20 + rng.int(0, 40) }, (_, i) => words[i % words.length]).join(' ') + '.';
}

/** The answer after </think>: the events in one of the three shapes the parser takes. */
export function captionJson(clipPath: string, prompt: string, events: readonly CaptionEvent[]): string {
  const shape = rngFrom(seedOf('captionShape', clipPath, prompt)).next();
  const array = JSON.stringify(events, null, 2);
  if (shape < 0.6) return array;
  if (shape < 0.8) return `Here are the events:\n\`\`\`json\n${array}\n\`\`\``;
  return JSON.stringify({ events });
}

/** An answer the parser must refuse: reasoning, then prose with no JSON in it. */
export function captionProse(events: readonly CaptionEvent[]): string {
  const parts = events.map((e) => e.caption.toLowerCase().replace(/\.$/, ''));
  return `The clip has ${events.length} part${events.length === 1 ? '' : 's'}; ${parts.join(', then ')}.`;
}

/** The whole generated text: `<think>reasoning</think>` and the answer. */
export function captionGenerated(clipPath: string, prompt: string, answer: string): string {
  return `<think>\n${captionThinking(clipPath, prompt)}\n</think>\n\n${answer}`;
}
