// One caption request per clip (SPEC-AVTIME-DATA §3): the clip as a file:// video_url, its mp3 sidecar as an
// audio_url, the prompt; use_audio_in_video false (the sidecar, not the mp4's track, is the audio); the seed's
// decoding; frames at --video-fps within the frame bounds, with the processor told the same rate.
// The frame fields, as read in vLLM's files near v0.18.0 (the first release with per-request media_io_kwargs, #34778):
// VideoMediaIO merges the request's media_io_kwargs over --media-io-kwargs and drops the server's num_frames when
// the request gives only fps (falling back to 32), so both go together; its loader takes
// min(num_frames, total, floor(duration·fps)) frames. The HF processor is not given the loader's metadata for
// Qwen-Omni and assumes 1 fps unless told, so mm_processor_kwargs.fps carries the rate of the frames sent.
import { audioUrlPart, videoUrlPart, type AudioUrlPart, type VideoUrlPart } from '../../serving/models/qwen3Omni/request';

/** The seed's caption decoding. */
export const CAPTION_DECODING = { temperature: 0.6, top_p: 0.95, top_k: 20, repetition_penalty: 1.0, max_tokens: 32_768 } as const;

export interface FrameSampling {
  /** --video-fps (default 4). */
  fps: number;
  /** --video-min-frames (default 4), --video-max-frames (default 768). */
  minFrames: number;
  maxFrames: number;
}
export const DEFAULT_FRAME_SAMPLING: FrameSampling = { fps: 4, minFrames: 4, maxFrames: 768 };

/** The frames a clip of `durationS` seconds with `totalFrames` frames is sampled to: ⌊d·fps⌋ within the bounds and the clip. */
export function captionFrameCount(durationS: number, totalFrames: number, s: FrameSampling = DEFAULT_FRAME_SAMPLING): number {
  if (!(durationS > 0) || !(totalFrames >= 1)) throw new RangeError(`a clip needs a positive duration and a frame (got ${durationS} s, ${totalFrames} frames)`);
  const wanted = Math.floor(durationS * s.fps);
  return Math.max(1, Math.min(Math.max(wanted, s.minFrames), s.maxFrames, totalFrames));
}

export interface CaptionRequestBody {
  model: string;
  messages: [{ role: 'user'; content: [VideoUrlPart, AudioUrlPart, { type: 'text'; text: string }] }];
  temperature: number;
  top_p: number;
  top_k: number;
  repetition_penalty: number;
  max_tokens: number;
  media_io_kwargs: { video: { num_frames: number; fps: number } };
  mm_processor_kwargs: { use_audio_in_video: false; fps: number };
  return_token_ids?: true;
}

export interface CaptionRequestInput {
  model: string;
  clipPath: string;
  sidecarPath: string;
  prompt: string;
  /** The clip's measured duration and frame count (ffprobe). */
  durationS: number;
  totalFrames: number;
  sampling?: FrameSampling;
  /** The pre-flight's request: the server gives back the prompt's token ids to count the placeholders. */
  returnTokenIds?: boolean;
}

export function buildCaptionRequest(r: CaptionRequestInput): CaptionRequestBody {
  const sampling = r.sampling ?? DEFAULT_FRAME_SAMPLING;
  const frames = captionFrameCount(r.durationS, r.totalFrames, sampling);
  return {
    model: r.model,
    messages: [{ role: 'user', content: [videoUrlPart(r.clipPath), audioUrlPart(r.sidecarPath), { type: 'text', text: r.prompt }] }],
    ...CAPTION_DECODING,
    // num_frames with fps: the loader's min(num_frames, total, ⌊d·fps⌋) is then exactly `frames` whenever ⌊d·fps⌋ ≥ minFrames.
    media_io_kwargs: { video: { num_frames: frames, fps: sampling.fps } },
    mm_processor_kwargs: { use_audio_in_video: false, fps: frames / r.durationS },
    ...(r.returnTokenIds ? { return_token_ids: true as const } : {}),
  };
}
