// One target video, from its facts to (1) what the reference's preprocessing gives the model — qwen_omni_utils'
// frames and size, then the processor's second resize, and the placeholder counts — and (2) the per-request
// fields that make the server take the same frame count and reach the same size in its single resize.
// docs/AVTIME-PREPROCESSING.md says what still differs (which source frames, the pixels themselves).
import type { MediaFacts } from './mediaFacts';
import { audioTokens, processorFrameSize, resampledLength, serverPixelBounds, videoTokens, type PlaceholderCounts } from './counts';
import { referenceFrameSize, smartNframes } from './omniUtils';

export interface TargetPlan {
  /** smart_nframes: the frames the reference samples (and the server is asked for). */
  nframes: number;
  /** After qwen_omni_utils' resize (factor 28, its budget). */
  referenceSize: { height: number; width: number };
  /** After the processor's resize of that (factor 32): what the model sees. */
  modelSize: { height: number; width: number };
  /** The audio resampled to 16 kHz, in samples; null without an audio track. */
  audioSamples16k: number | null;
  /** The placeholder counts the reference's preprocessing gives (audio 0 when audio in video is off). */
  predicted: PlaceholderCounts;
  /** Pixel bounds for the server's one resize, or null when no bounds reach modelSize. */
  serverPixels: { minPixels: number; maxPixels: number } | null;
}

export function targetPlan(facts: MediaFacts, audioInVideo: boolean): TargetPlan {
  const nframes = smartNframes(facts.totalFrames, facts.fps);
  const referenceSize = referenceFrameSize(facts.height, facts.width, nframes);
  const modelSize = processorFrameSize(referenceSize.height, referenceSize.width);
  const audioSamples16k = facts.audio ? resampledLength(facts.audio.samples, facts.audio.sampleRate) : null;
  return {
    nframes,
    referenceSize,
    modelSize,
    audioSamples16k,
    predicted: {
      video: videoTokens(nframes, modelSize.height, modelSize.width),
      audio: audioInVideo && audioSamples16k !== null ? audioTokens(audioSamples16k) : 0,
    },
    serverPixels: serverPixelBounds(facts.height, facts.width, modelSize),
  };
}

/**
 * The request fields of the pinned vLLM that carry the plan:
 * - `media_io_kwargs.video.num_frames` — the runtime field VideoMediaIO merges over --media-io-kwargs
 *   (vllm/multimodal/media/video.py: "user-provided either by --media-io-kwargs or by the runtime API field
 *   media_io_kwargs"; a runtime num_frames without fps drops a default fps); its loader takes
 *   `min(num_frames, total)` uniform frames (vllm/multimodal/video.py), 32 when not told.
 * - `mm_processor_kwargs.videos_kwargs` — handed to the HF processor's video kwargs (Qwen3OmniMoeVideosKwargs):
 *   the bounds of its one resize both as `size` {shortest_edge, longest_edge} and as `min_pixels`/`max_pixels`
 *   (transformers' Qwen2VLVideoProcessor has resized by either, by version; the same values either way), and
 *   `do_sample_frames: false` so it keeps the loader's frames (the reference's processor samples none).
 */
export function planRequestFields(plan: TargetPlan): {
  media_io_kwargs: { video: { num_frames: number } };
  videos_kwargs: { size?: { shortest_edge: number; longest_edge: number }; min_pixels?: number; max_pixels?: number; do_sample_frames: false };
} {
  const px = plan.serverPixels;
  return {
    media_io_kwargs: { video: { num_frames: plan.nframes } },
    videos_kwargs: {
      ...(px ? { size: { shortest_edge: px.minPixels, longest_edge: px.maxPixels }, min_pixels: px.minPixels, max_pixels: px.maxPixels } : {}),
      do_sample_frames: false,
    },
  };
}
