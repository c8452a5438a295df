// What vLLM's Qwen3-VL processor really charges (SPEC §2.5). Prediction only: it never changes
// frame selection, which follows the seed's formula (resize.ts).
import { MAX_TOKENS } from './constants';
import type { Dims } from './resize';

const FACTOR = 32; // patch 16 × spatial merge 2
const MIN_PIXELS = 65_536;
const MAX_PIXELS = 16_777_216;
/** Vision start/end tokens around each image. */
const IMAGE_WRAP_TOKENS = 2;
/** Chat-template tokens around one user turn and the assistant header (Qwen chat format). */
const TEMPLATE_TOKENS = 14;
// Floating-point slack before ceil/floor so exact multiples (224·8/7 = 256) stay exact.
const EPS = 1e-9;

/** Python's round(): half to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (Math.abs(diff - 0.5) < EPS) return f % 2 === 0 ? f : f + 1;
  return Math.round(x);
}

/** The dims Qwen3-VL's smart resize gives an image of `width × height`. */
export function qwenResizedDims(width: number, height: number): Dims {
  let h = Math.max(FACTOR, roundHalfEven(height / FACTOR) * FACTOR);
  let w = Math.max(FACTOR, roundHalfEven(width / FACTOR) * FACTOR);
  if (h * w > MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / MAX_PIXELS);
    h = Math.max(FACTOR, Math.floor(height / beta / FACTOR + EPS) * FACTOR);
    w = Math.max(FACTOR, Math.floor(width / beta / FACTOR + EPS) * FACTOR);
  } else if (h * w < MIN_PIXELS) {
    const beta = Math.sqrt(MIN_PIXELS / (height * width));
    h = Math.ceil((height * beta) / FACTOR - EPS) * FACTOR;
    w = Math.ceil((width * beta) / FACTOR - EPS) * FACTOR;
  }
  return { width: w, height: h };
}

/** Tokens one image costs: `(h'/32)·(w'/32) + 2` (398×224 → 86, 299×168 → 68, 224×224 → 66). */
export function qwenImageTokens(width: number, height: number): number {
  const d = qwenResizedDims(width, height);
  return (d.height / FACTOR) * (d.width / FACTOR) + IMAGE_WRAP_TOKENS;
}

/**
 * Estimated text tokens: about one token per 4 characters of English plus the chat template.
 * An estimate; the stand-in server charges exactly this, the real server reports its own count.
 */
export function estimateTextTokens(text: string): number {
  return TEMPLATE_TOKENS + Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

export function predictPromptTokens(frameDims: readonly Dims[], promptText: string): number {
  let total = estimateTextTokens(promptText);
  for (const d of frameDims) total += qwenImageTokens(d.width, d.height);
  return total;
}

/**
 * True when a request of these frames would be refused by a server with `maxModelLen` context. vLLM
 * 0.11 refuses a multimodal prompt only when the prompt alone exceeds the context (one that fits but
 * leaves less than max_tokens is answered, cut at the limit); a text-only prompt must leave room for
 * max_tokens (vllm/v1/engine/processor.py, _validate_model_input; serving_engine's length check).
 */
export function predictContextRefusal(frameDims: readonly Dims[], promptText: string, maxModelLen: number): boolean {
  return refusesPrompt(predictPromptTokens(frameDims, promptText), frameDims.length, maxModelLen);
}

/** vLLM 0.11's refusal rule for a prompt of `promptTokens` carrying `nImages` images. */
export function refusesPrompt(promptTokens: number, nImages: number, maxModelLen: number): boolean {
  return nImages > 0 ? promptTokens > maxModelLen : promptTokens + MAX_TOKENS > maxModelLen;
}
