// What the stand-in Gemini answers to a generateContent call (https://ai.google.dev/api/generate-content:
// GenerateContentResponse): a caption array naming the file's displayName (a test can tell whose answer it is), or
// the faults' blocked prompt (promptFeedback.blockReason, no candidates), blocked answer (finishReason SAFETY or
// RECITATION, no content), empty answer or prose. Tokens: https://ai.google.dev/gemini-api/docs/tokens counts a
// video at 263 tokens per second; the stand-in does not decode the file, so it counts a fixed 263 per file (one
// second's worth) plus a character-based estimate of the text (about 4 characters a token, the same page).
import type { ClipFaults } from './faults';

const VIDEO_TOKENS_PER_FILE = 263;

export function standinAnswer(model: string, displayName: string, faults: ClipFaults, answered: number): { body: Record<string, unknown>; text: string } {
  if (faults.blockPrompt) return { body: { promptFeedback: { blockReason: faults.blockPrompt } }, text: '' };
  if (faults.blockAnswer) return { body: { candidates: [{ finishReason: faults.blockAnswer, index: 0, safetyRatings: [] }] }, text: '' };
  let text: string;
  if (answered <= (faults.empty ?? 0)) text = '';
  else if (answered - (faults.empty ?? 0) <= (faults.prose ?? 0)) text = 'I cannot tell what happens in this clip.';
  else
    text =
      '```json\n' +
      JSON.stringify([
        { start_sec: 0, end_sec: '0.5', caption: `${displayName} begins (${model})` },
        { start_sec: 0.5, end_sec: 1, caption: `${displayName} ends` },
      ]) +
      '\n```';
  return { body: { candidates: [{ content: { role: 'model', parts: text ? [{ text }] : [] }, finishReason: 'STOP', index: 0 }] }, text };
}

export function standinUsage(promptText: string, files: number, answer: string) {
  const promptTokenCount = files * VIDEO_TOKENS_PER_FILE + Math.ceil(promptText.length / 4);
  const candidatesTokenCount = Math.ceil(answer.length / 4);
  return { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
}
