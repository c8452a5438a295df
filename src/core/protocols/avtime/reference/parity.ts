// What run_config.json says about the target's preprocessing against the reference's (SPEC-AVTIME §3,
// docs/AVTIME-PREPROCESSING.md): what is the same by construction, what the pre-flight checks, what still differs.
import { FPS, FPS_MAX_FRAMES, FPS_MIN_FRAMES, VIDEO_MAX_PIXELS, VIDEO_MIN_PIXELS, VIDEO_TOTAL_PIXELS } from '../../../serving/models/qwen3Omni/omniUtils';
import { OMNI_FACTOR, OMNI_MAX_PIXELS, OMNI_MIN_PIXELS } from '../../../serving/models/qwen3Omni/counts';

export const TARGET_PREPROCESSING = {
  reference: 'qwen_omni_utils 0.0.3 (v2_5 vision_process.py, audio_process.py) then the Qwen3-Omni processor, offline',
  reference_rules: {
    fps: FPS,
    min_frames: FPS_MIN_FRAMES,
    max_frames: FPS_MAX_FRAMES,
    frame_factor: 2,
    video_min_pixels: VIDEO_MIN_PIXELS,
    video_max_pixels: VIDEO_MAX_PIXELS,
    video_total_pixels: VIDEO_TOTAL_PIXELS,
    audio_rate: 16000,
  },
  processor: { factor: OMNI_FACTOR, min_pixels: OMNI_MIN_PIXELS, max_pixels: OMNI_MAX_PIXELS },
  request: 'media_io_kwargs.video.num_frames = the reference frame count; mm_processor_kwargs.videos_kwargs.size = pixel bounds for the same final size',
  same: ['frame count', 'final frame size (grid) where pixel bounds reach it', 'placeholder token counts (checked by the pre-flight)', 'audio track at 16 kHz'],
  /** Exact pixel parity cannot be had: recorded as such. */
  pixel_parity: false,
  differs: [
    "frame indices: the reference rounds linspace (float32), vLLM's loader floors it: a frame may be its neighbour",
    'pixels: the reference resizes twice (torchvision bicubic antialias to a multiple of 28, then the processor to a multiple of 32), ' +
      'the server once from the decoded frame',
    'decoders: decord/torchvision and librosa (audioread/ffmpeg) in the reference, the server’s own video backend and audio loader',
  ],
  note: 'docs/AVTIME-PREPROCESSING.md',
} as const;
