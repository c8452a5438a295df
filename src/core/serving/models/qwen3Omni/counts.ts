// How many video and audio placeholder tokens Qwen3-Omni's processor gives a video and its audio track: pure
// functions, read in vLLM's vllm/model_executor/models/qwen3_omni_moe_thinker.py (the search index's stored copy;
// the pin is v0.18.0, docs/VLLM-PINS.md, whose tag could not be checked out here: docs/AVTIME-PREPROCESSING.md):
// `_call_hf_processor` (audio padded to a multiple of hop_length, feature length = samples / hop),
// `_get_feat_extract_output_lengths`, `get_replacement_qwen2_vision` (grid_thw.prod() // merge_size²) and
// `get_updates_use_audio_in_video` (every video and every audio token, interleaved between <|audio_start|> and
// <|audio_end|>); the processor's video bounds from transformers' processing_qwen3_omni_moe.py. Checkpoint values from
// Qwen/Qwen3-Omni-30B-A3B-Instruct's preprocessor_config.json and config.json.
import { smartResize } from './omniUtils';

/** preprocessor_config.json: patch_size 16, merge_size 2, temporal_patch_size 2. */
export const OMNI_PATCH_SIZE = 16;
export const OMNI_MERGE_SIZE = 2;
export const OMNI_TEMPORAL_PATCH_SIZE = 2;
/** The processor's resize factor: patch_size × merge_size. */
export const OMNI_FACTOR = OMNI_PATCH_SIZE * OMNI_MERGE_SIZE;
/**
 * The video bounds the processor resizes with: huggingface/transformers processing_qwen3_omni_moe.py,
 * `Qwen3OmniMoeProcessorKwargs._defaults.videos_kwargs.size` {shortest_edge: 128·32², longest_edge: 768·32²}, which
 * `_merge_kwargs` hands to the video processor over its own preprocessor_config.json bounds (3136 / 12845056, the
 * images'); a request's `videos_kwargs.size` overrides them in turn.
 */
export const OMNI_MIN_PIXELS = 128 * 32 * 32;
export const OMNI_MAX_PIXELS = 768 * 32 * 32;
/** WhisperFeatureExtractor: sampling_rate 16000, hop_length 160. */
export const OMNI_SAMPLING_RATE = 16000;
export const OMNI_HOP_LENGTH = 160;
/** config.json thinker_config: video_token_id (<|video_pad|>), audio_token_id (<|audio_pad|>). */
export const OMNI_VIDEO_TOKEN_ID = 151656;
export const OMNI_AUDIO_TOKEN_ID = 151675;

/** Python's floor division for integers (`//`), negatives included (the formula below relies on it). */
const fdiv = (a: number, b: number) => Math.floor(a / b);

/** `_get_feat_extract_output_lengths`: audio feature frames (100 a second) → audio tokens (13 per full 100 frames). */
export function audioTokensForFeatureFrames(featureFrames: number): number {
  const leave = featureFrames % 100;
  const feat = fdiv(leave - 1, 2) + 1;
  return fdiv(fdiv(feat - 1, 2) + 1 - 1, 2) + 1 + fdiv(featureFrames, 100) * 13;
}

/** librosa.resample's output length: `int(np.ceil(n * target_sr / orig_sr))` (both the reference's librosa.load and vLLM's resampler). */
export function resampledLength(samples: number, origRate: number, targetRate = OMNI_SAMPLING_RATE): number {
  return origRate === targetRate ? samples : Math.ceil((samples * targetRate) / origRate);
}

/** `_call_hf_processor`: the audio is padded to a multiple of hop_length, then has length / hop_length feature frames. */
export function audioFeatureFrames(samples16k: number): number {
  return Math.ceil(samples16k / OMNI_HOP_LENGTH);
}

export function audioTokens(samples16k: number): number {
  return audioTokensForFeatureFrames(audioFeatureFrames(samples16k));
}

/** The processor's own resize of a frame of this size (factor 32, the checkpoint's or the request's pixel bounds). */
export function processorFrameSize(height: number, width: number, minPixels = OMNI_MIN_PIXELS, maxPixels = OMNI_MAX_PIXELS) {
  return smartResize(height, width, OMNI_FACTOR, minPixels, maxPixels);
}

/** grid_thw = (frames / 2, h / 16, w / 16); tokens = prod // merge_size². */
export function videoTokens(nframes: number, height: number, width: number): number {
  const t = Math.ceil(nframes / OMNI_TEMPORAL_PATCH_SIZE);
  return (t * (height / OMNI_PATCH_SIZE) * (width / OMNI_PATCH_SIZE)) / (OMNI_MERGE_SIZE * OMNI_MERGE_SIZE);
}

export interface PlaceholderCounts {
  video: number;
  audio: number;
}

/** Counts the two placeholder ids in a prompt's token ids (vLLM's `prompt_token_ids`). */
export function countPlaceholders(promptTokenIds: readonly number[]): PlaceholderCounts {
  let video = 0;
  let audio = 0;
  for (const id of promptTokenIds) {
    if (id === OMNI_VIDEO_TOKEN_ID) video++;
    else if (id === OMNI_AUDIO_TOKEN_ID) audio++;
  }
  return { video, audio };
}

/**
 * Pixel bounds that make ONE resize of the original frame (the server's) land on `target` (the size the
 * reference reaches in two), verified with the same smart_resize; null when no bounds do.
 */
export function serverPixelBounds(height: number, width: number, target: { height: number; width: number }): { minPixels: number; maxPixels: number } | null {
  const area = target.height * target.width;
  const hits = (minPixels: number, maxPixels: number) => {
    const r = processorFrameSize(height, width, minPixels, maxPixels);
    return r.height === target.height && r.width === target.width;
  };
  const candidates: [number, number][] = [[area, area]];
  const H = target.height;
  const W = target.width;
  const F = OMNI_FACTOR;
  // Down: floor(side / beta / F) * F = target side iff side / (T + F) < beta ≤ side / T.
  const dLo = Math.max(height / (H + F), width / (W + F));
  const dHi = Math.min(height / H, width / W);
  // Up: ceil(side * beta / F) * F = target side iff (T − F) / side < beta ≤ T / side.
  const uLo = Math.max((H - F) / height, (W - F) / width);
  const uHi = Math.min(H / height, W / width);
  for (const q of [0.5, 0.25, 0.75, 0.1, 0.9]) {
    if (dLo < dHi) {
      const beta = dLo + (dHi - dLo) * q;
      candidates.push([1, Math.floor((height * width) / (beta * beta))]);
    }
    if (uLo < uHi) {
      const beta = uLo + (uHi - uLo) * q;
      const minPixels = Math.ceil(beta * beta * height * width);
      candidates.push([minPixels, Math.max(minPixels, OMNI_MAX_PIXELS)]);
    }
  }
  for (const [minPixels, maxPixels] of candidates) if (minPixels >= 1 && minPixels <= maxPixels && hits(minPixels, maxPixels)) return { minPixels, maxPixels };
  return null;
}
