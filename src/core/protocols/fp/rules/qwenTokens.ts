// What vLLM's Qwen3-VL processor really charges (SPEC §2.5). Prediction only: it never changes
// frame selection, which follows the seed's formula (resize.ts).
//
// The image rule mirrors transformers' `smart_resize` (src/transformers/models/qwen2_vl/
// image_processing_qwen2_vl.py; the v5 copy in image_processing_pil_qwen2_vl.py reads the same),
// which Qwen3-VL's image processor calls with patch 16 × merge 2 = factor 32 and size
// {shortest_edge: 65,536, longest_edge: 16,777,216} (the model's preprocessor_config.json; SPEC §2.5).
// Each step is the same IEEE-754 double operation Python performs, with no tolerance:
//   h̄ = round(h/32)·32, w̄ = round(w/32)·32 (Python's round: ties to even, on the double);
//   h̄·w̄ > max: β = √(h·w/max), h̄ = max(32, ⌊h/β/32⌋·32), w̄ likewise;
//   h̄·w̄ < min: β = √(min/(h·w)), h̄ = ⌈h·β/32⌉·32, w̄ likewise (no clamp: a 16-px side rounds to 0 first).
// So 239×239 → 288×288 (239·√(65536/57121) is 256.00000000000006 as a double, so ⌈8.000…⌉ = 9): 81 + 2 = 83 tokens;
// 16×2160 → 32×2976: 93 + 2 = 95 tokens. Checked against transformers 5.17's own processor on 4,500 sizes
// (test/fixtures/qwen3vl_image_tokens.json, test/core/protocols/fp/rules/qwenTokens.test.ts).
import { MAX_TOKENS } from './constants';
import type { Dims } from './resize';

const FACTOR = 32; // patch 16 × spatial merge 2
const MIN_PIXELS = 65_536;
const MAX_PIXELS = 16_777_216;
/** Vision start/end tokens around each image. */
const IMAGE_WRAP_TOKENS = 2;
/**
 * The chat template's fixed tokens for one user turn and the generation prompt. Qwen3-VL-8B-Instruct's
 * template (chat_template.json of the model, revision in constants.ts) has no default system message;
 * for one user message of N images then the text T, with add_generation_prompt, it renders
 *   <|im_start|>user\n  (<|vision_start|><|image_pad|><|vision_end|>)×N  T  <|im_end|>\n<|im_start|>assistant\n
 * ({%- … %} and {% … -%} trim the template's own indentation and newlines around the image part).
 * Tokens: <|im_start|>, "user", "\n" | T | <|im_end|>, "\n", <|im_start|>, "assistant", "\n" = 8.
 * (Qwen2's pre-tokenizer keeps a letter run and a newline apart, and special tokens split the text,
 * so "user\n" is always 2 tokens, whatever T starts with.) The per-image vision start/end are counted
 * with each image (IMAGE_WRAP_TOKENS); <|image_pad|> becomes the image's (h'/32)·(w'/32) tokens.
 */
export const TEMPLATE_TOKENS = 8;

/** Python's round() on a double: nearest integer, exact halves to the even one. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f; // exact for |x| < 2^52: the fraction of a double is a double
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * The dims Qwen3-VL's smart resize gives an image of `width × height` (positive integers). transformers
 * refuses an aspect ratio above 200 (vLLM then answers an error); this still returns dims for one, since
 * it only predicts, and no video of the protocol comes near that shape.
 */
export function qwenResizedDims(width: number, height: number): Dims {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`image size must be positive integers, got ${width}×${height}`);
  }
  let h = roundHalfEven(height / FACTOR) * FACTOR;
  let w = roundHalfEven(width / FACTOR) * FACTOR;
  if (h * w > MAX_PIXELS) {
    const beta = Math.sqrt((height * width) / MAX_PIXELS);
    h = Math.max(FACTOR, Math.floor(height / beta / FACTOR) * FACTOR);
    w = Math.max(FACTOR, Math.floor(width / beta / FACTOR) * FACTOR);
  } else if (h * w < MIN_PIXELS) {
    const beta = Math.sqrt(MIN_PIXELS / (height * width));
    h = Math.ceil((height * beta) / FACTOR) * FACTOR;
    w = Math.ceil((width * beta) / FACTOR) * FACTOR;
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
