// What a generateContent answer means for a clip (https://ai.google.dev/api/generate-content: the response's
// `promptFeedback.blockReason`, `candidates[].finishReason`, `usageMetadata`). A blocked prompt is HTTP 200 with a
// blockReason and no candidates; a blocked answer is HTTP 200 with finishReason SAFETY (or RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII…) and no text: both fail the clip with that reason, never retried (the same clip is
// blocked again). No candidate, or no text with a finish reason that is not a block, is an empty answer.

export interface GeminiUsage {
  prompt: number;
  candidates: number;
  total: number;
}

export type GeminiReply =
  | { kind: 'text'; text: string; finishReason: string | null; usage: GeminiUsage }
  | { kind: 'blocked'; reason: string; usage: GeminiUsage }
  | { kind: 'empty'; finishReason: string | null; usage: GeminiUsage };

/** Finish reasons that are a block, not a cut answer (FinishReason in node_modules/@google/genai/dist/node/node.d.ts). */
const BLOCKING = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

interface ResponseLike {
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  candidates?: { finishReason?: string; content?: { parts?: { text?: string; thought?: boolean }[] } }[];
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; thoughtsTokenCount?: number; totalTokenCount?: number };
}

export function usageOf(r: ResponseLike): GeminiUsage {
  const u = r.usageMetadata ?? {};
  const prompt = u.promptTokenCount ?? 0;
  const candidates = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
  return { prompt, candidates, total: u.totalTokenCount ?? prompt + candidates };
}

export function readGeminiReply(r: ResponseLike): GeminiReply {
  const usage = usageOf(r);
  const block = r.promptFeedback?.blockReason;
  if (block && block !== 'BLOCKED_REASON_UNSPECIFIED') {
    const words = r.promptFeedback?.blockReasonMessage;
    return { kind: 'blocked', reason: `prompt blocked: ${block}${words ? ` (${words})` : ''}`, usage };
  }
  const c = r.candidates?.[0];
  const finishReason = c?.finishReason ?? null;
  if (finishReason && BLOCKING.has(finishReason)) return { kind: 'blocked', reason: `answer blocked: finishReason ${finishReason}`, usage };
  // Thought parts (a thinking model's summary) are not the answer.
  const text = (c?.content?.parts ?? [])
    .filter((p) => !p.thought && typeof p.text === 'string')
    .map((p) => p.text)
    .join('');
  if (!text.trim()) return { kind: 'empty', finishReason, usage };
  return { kind: 'text', text, finishReason, usage };
}

export const addUsage = (a: GeminiUsage, b: GeminiUsage): GeminiUsage => ({
  prompt: a.prompt + b.prompt,
  candidates: a.candidates + b.candidates,
  total: a.total + b.total,
});
export const NO_USAGE: GeminiUsage = { prompt: 0, candidates: 0, total: 0 };
