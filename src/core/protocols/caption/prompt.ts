// The caption prompt (SPEC-AVTIME-DATA §3, [decided]): one to three visual-first events per clip, audio as
// supporting evidence, the answer a JSON array of {start_sec, end_sec, caption} in seconds from the clip's start.
// Versioned: a change is a new version, and its sha256 goes into every raw record and the run's identity, so a
// resume never mixes two prompts (signature.ts).
import { createHash } from 'node:crypto';

export const CAPTION_PROMPT_VERSION = 'fpsweep-caption-v1';

export const CAPTION_PROMPT_V1 = [
  'You are given one short clip of a longer video, with its audio as a separate track.',
  'Describe what happens in it as one to three events, in the order they happen.',
  'Describe what is seen first; use what is heard only as supporting evidence (speech, sounds, music) for what is seen.',
  'Give each event its start and end time in seconds from the start of this clip.',
  'Answer with only a JSON array, no other text:',
  '[{"start_sec": <number>, "end_sec": <number>, "caption": "<one or two sentences>"}]',
].join('\n');

/**
 * Gemini's default: the same asks, but Gemini gets only the clip's mp4 (SPEC-AVTIME-DATA §3b), whose own audio track is
 * the sound — not a separate track as the vLLM request's mp3 sidecar is. Its own version, so its sha256 differs.
 */
export const CAPTION_PROMPT_GEMINI_VERSION = 'fpsweep-caption-gemini-v1';

export const CAPTION_PROMPT_GEMINI_V1 = ['You are given one short clip of a longer video, with its sound.', ...CAPTION_PROMPT_V1.split('\n').slice(1)].join(
  '\n',
);

export interface CaptionPrompt {
  text: string;
  /** The version's name, or the file it was read from (--prompt-file). */
  source: string;
  sha256: string;
}

export function captionPrompt(text: string = CAPTION_PROMPT_V1, source: string = CAPTION_PROMPT_VERSION): CaptionPrompt {
  if (!text.trim()) throw new Error(`the caption prompt from ${source} is empty`);
  return { text, source, sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}
