// The AVTime target model (a Qwen-Omni-style dense captioner): answers `From XX to YY, caption`
// lines decided by a hash of the video path and the prompt, with knobs for prose lines, answers
// without any valid line, and near-duplicate neighbours that the LongVALE merge (ratio > 0.98) joins.
import type { ServeArgs } from '../args';
import type { ParsedAvtimeChat } from './body';
import type { TargetKnobs } from './knobs';
import { hashFraction, rngFrom, seedOf, textTokens, type Rng } from './random';
import { loadVideo, type ProbedMedia } from './video';
import { audioPacketHash, omniVideoPrompt, promptTokenIds, type OmniVideoPrompt } from './omniPrompt';

/** Words the sample bench's reference captions use too, so a judge's word overlap means something. */
const AUDIO_CAPTIONS = [
  'a low tone plays',
  'a high tone plays',
  'a tone rises in pitch',
  'the sound goes silent',
  'a steady hum is heard',
  'a short beep repeats',
  'a middle tone plays softly',
];
const VISUAL_CAPTIONS = [
  'the screen is red',
  'the screen is green',
  'the screen is blue',
  'the screen is yellow',
  'a white square moves across the screen',
  'the picture goes dark',
  'a bright flash fills the screen',
];
/** Tails that make a caption long enough (≥ 60 characters) for a one-character edit to stay above 0.98. */
const LONG_TAILS = [
  ', while the rest of the frame stays completely still and quiet',
  ' and continues without any change for the whole of this interval',
  ', clearly noticeable over the faint background noise of the room',
];

export interface TargetAnswer {
  content: string;
  promptTokens: number;
  /** With return_token_ids (the pre-flight): the prompt's ids, placeholders in the counts the model would see. */
  promptTokenIds: number[] | null;
}

export async function targetAnswer(
  parsed: ParsedAvtimeChat,
  args: Pick<ServeArgs, 'allowedLocalMediaPath' | 'mediaIoKwargs' | 'mmProcessorKwargs' | 'mmProcessorCacheGb'>,
  knobs: TargetKnobs,
): Promise<TargetAnswer> {
  const videos: ProbedMedia[] = [];
  for (const url of parsed.videoUrls) videos.push(await loadVideo(url, args.allowedLocalMediaPath));
  const prompts: OmniVideoPrompt[] = [];
  for (const v of videos) prompts.push(await omniVideoPrompt(v, parsed, args, knobs, audioPacketHash));
  const text = textTokens(parsed.promptText).length;
  const ids = promptTokenIds(text, prompts);
  const key = [...videos.map((v) => v.path), parsed.promptText];
  return { content: targetText(key, knobs), promptTokens: ids.length, promptTokenIds: parsed.body.return_token_ids ? ids : null };
}

interface Event {
  start: number;
  end: number;
  caption: string;
}

/** The answer for one (videos, prompt) key. */
export function targetText(key: readonly string[], knobs: TargetKnobs): string {
  const rng = rngFrom(seedOf('target', ...key));
  if (hashFraction('noEvents', ...key) < knobs.noEvents) return noValidLines(rng);
  const events = drawEvents(rng, knobs, key);
  const lines = events.map((e) => `From ${pct(e.start)} to ${pct(e.end)}, ${e.caption}`);
  // Now and then two lines out of time order: the normalizer sorts, stably.
  if (lines.length > 2 && rng.next() < 0.3) {
    const k = rng.int(0, lines.length - 2);
    [lines[k], lines[k + 1]] = [lines[k + 1], lines[k]];
  }
  if (hashFraction('prose', ...key) < knobs.prose) {
    lines.unshift(rng.pick(['Here are the audio-visual events I found in the video:', 'Sure! The events are:', 'Events:']));
    lines.splice(rng.int(2, lines.length), 0, rng.pick(['', 'Then:', '(the next part is quieter)']));
    lines.push(rng.pick(['These captions cover both the audio and the visual track.', 'I hope this helps.']));
  }
  return lines.join('\n');
}

function drawEvents(rng: Rng, knobs: TargetKnobs, key: readonly string[]): Event[] {
  const n = rng.int(knobs.minEvents, knobs.maxEvents);
  const step = Math.max(1, Math.floor(180 / n));
  const out: Event[] = [];
  // Starts never decrease, and nothing starts between a near-duplicate pair, so the pair stays
  // adjacent once sorted by (start, end): the only case the adjacent merge can join.
  let cursor = 0;
  for (let i = 0; i < n && cursor <= 99; i++) {
    const start = Math.min(99, cursor + rng.int(0, step - 1));
    const end = Math.min(99, start + rng.int(0, 20));
    const base = rng.pick(rng.next() < 0.5 ? AUDIO_CAPTIONS : VISUAL_CAPTIONS);
    const near = hashFraction(`nearDup${i}`, ...key) < knobs.nearDup;
    const caption = near ? base + rng.pick(LONG_TAILS) : base;
    out.push({ start, end, caption });
    cursor = start;
    if (near) {
      // One edit (ratio (L-1)/L > 0.98 for L ≥ 60: merged) or two (≤ 0.98 up to L = 100: kept apart),
      // starting -1..+1 percent from the end (the merge window) or +2 (outside it).
      const edits = rng.next() < 0.7 ? 1 : 2;
      const gap = rng.pick([-1, 0, 1, 1, 2]);
      const s2 = Math.min(99, Math.max(start, end + gap));
      out.push({ start: s2, end: Math.min(99, Math.max(end, s2 + rng.int(0, 10))), caption: edit(caption, edits, rng) });
      cursor = s2 + 1;
    }
  }
  return out;
}

/** `caption` with `k` letters swapped for other letters (never the first, so the line stays readable). */
function edit(caption: string, k: number, rng: Rng): string {
  const chars = [...caption];
  const done = new Set<number>();
  while (done.size < k) {
    const i = rng.int(1, chars.length - 1);
    if (done.has(i) || !/[a-z]/.test(chars[i])) continue;
    chars[i] = chars[i] === 'x' ? 'y' : 'x';
    done.add(i);
  }
  return chars.join('');
}

/** Lines a careless model writes: none matches `^From ([0-9]{2}) to ([0-9]{2}), (.+)$` with start ≤ end ≤ 99. */
function noValidLines(rng: Rng): string {
  const bad = [
    'I could not identify distinct audio-visual events in this video.',
    `From ${rng.int(1, 9)} to ${rng.int(10, 40)}, ${rng.pick(AUDIO_CAPTIONS)}`,
    `From ${rng.int(60, 99)} to ${rng.int(10, 50)}, ${rng.pick(VISUAL_CAPTIONS)}`,
    `00:0${rng.int(1, 9)} - 00:1${rng.int(0, 9)} ${rng.pick(VISUAL_CAPTIONS)}`,
    `From ${pct(rng.int(0, 50))} to ${pct(rng.int(50, 99))}: ${rng.pick(AUDIO_CAPTIONS)}`,
  ];
  const lines = rng.next() < 0.5 ? [bad[0]] : [];
  for (const line of bad.slice(1)) if (rng.next() < 0.6) lines.push(line);
  return (lines.length ? lines : [bad[0]]).join('\n');
}

function pct(n: number): string {
  return String(n).padStart(2, '0');
}
