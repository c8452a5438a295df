// The reference's video sampling (SPEC-AVTIME §3): qwen_omni_utils' rules as pure functions, read in its source
// (QwenLM/Qwen2.5-Omni, qwen-omni-utils/src/qwen_omni_utils/v2_5/vision_process.py, package 0.0.3, commit f8bf58c; the
// same constants and default-path rules at 3e266b0):
// smart_nframes, the frame indices of _read_video_decord/_read_video_torchvision, fetch_video's pixel budget and
// smart_resize. Qwen3-Omni's cookbooks call the same `process_mm_info` (v2_5 is the only vision module it ships).

/** vision_process.py constants. */
export const IMAGE_FACTOR = 28;
export const VIDEO_MIN_PIXELS = 128 * 28 * 28;
export const VIDEO_MAX_PIXELS = 768 * 28 * 28;
export const FRAME_FACTOR = 2;
export const FPS = 2.0;
export const FPS_MIN_FRAMES = 4;
export const FPS_MAX_FRAMES = 768;
/** `int(float(os.environ.get('VIDEO_MAX_PIXELS', 128000 * 28 * 28 * 0.9)))`: the default, env unset. */
export const VIDEO_TOTAL_PIXELS = Math.trunc(128000 * 28 * 28 * 0.9);
export const MAX_RATIO = 200;

/** Python's round(): half to even. */
export function pyRound(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
export const roundByFactor = (n: number, factor: number) => pyRound(n / factor) * factor;
export const ceilByFactor = (n: number, factor: number) => Math.ceil(n / factor) * factor;
export const floorByFactor = (n: number, factor: number) => Math.floor(n / factor) * factor;

/** smart_resize: both sides a multiple of `factor`, area within [minPixels, maxPixels], aspect kept as well as may be. */
export function smartResize(height: number, width: number, factor: number, minPixels: number, maxPixels: number): { height: number; width: number } {
  if (Math.max(height, width) / Math.min(height, width) > MAX_RATIO) {
    throw new Error(`absolute aspect ratio must be smaller than ${MAX_RATIO}, got ${Math.max(height, width) / Math.min(height, width)}`);
  }
  let h = Math.max(factor, roundByFactor(height, factor));
  let w = Math.max(factor, roundByFactor(width, factor));
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = floorByFactor(height / beta, factor);
    w = floorByFactor(width / beta, factor);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = ceilByFactor(height * beta, factor);
    w = ceilByFactor(width * beta, factor);
  }
  return { height: h, width: w };
}

/** smart_nframes with the defaults (fps 2, min 4, max min(768, total)), floored to an even count. */
export function smartNframes(totalFrames: number, videoFps: number): number {
  const minFrames = ceilByFactor(FPS_MIN_FRAMES, FRAME_FACTOR);
  const maxFrames = floorByFactor(Math.min(FPS_MAX_FRAMES, totalFrames), FRAME_FACTOR);
  const wanted = (totalFrames / videoFps) * FPS;
  const n = floorByFactor(Math.min(Math.min(Math.max(wanted, minFrames), maxFrames), totalFrames), FRAME_FACTOR);
  if (!(FRAME_FACTOR <= n && n <= totalFrames)) throw new Error(`nframes should in interval [${FRAME_FACTOR}, ${totalFrames}], but got ${n}.`);
  return n;
}

/**
 * `torch.linspace(0, total_frames - 1, nframes).round().long()`: torch computes in float32, from the start for
 * the first half and back from the end for the second (aten's linspace kernel), then rounds half to even.
 */
export function referenceFrameIndices(totalFrames: number, nframes: number): number[] {
  const f = Math.fround;
  const end = totalFrames - 1;
  if (nframes === 1) return [0];
  const step = f(f(end) / (nframes - 1));
  const half = Math.floor(nframes / 2);
  const out: number[] = [];
  for (let i = 0; i < nframes; i++) {
    const v = i < half ? f(f(step * i)) : f(end - f(step * (nframes - 1 - i)));
    out.push(pyRound(v));
  }
  return out;
}

/** `sample_fps = nframes / max(total_frames, 1e-6) * video_fps`, which the reference may hand on as the video's fps. */
export function sampleFps(totalFrames: number, nframes: number, videoFps: number): number {
  return (nframes / Math.max(totalFrames, 1e-6)) * videoFps;
}

/** fetch_video's max_pixels: `max(min(VIDEO_MAX_PIXELS, total_pixels / nframes * FRAME_FACTOR), int(min_pixels * 1.05))`. */
export function videoMaxPixels(nframes: number): number {
  return Math.max(Math.min(VIDEO_MAX_PIXELS, (VIDEO_TOTAL_PIXELS / nframes) * FRAME_FACTOR), Math.trunc(VIDEO_MIN_PIXELS * 1.05));
}

/** The size fetch_video resizes every frame to (factor 28, its pixel budget for this many frames). */
export function referenceFrameSize(height: number, width: number, nframes: number): { height: number; width: number } {
  return smartResize(height, width, IMAGE_FACTOR, VIDEO_MIN_PIXELS, videoMaxPixels(nframes));
}
