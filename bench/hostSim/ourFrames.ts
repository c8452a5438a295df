// What our frames cost the host, per video, on either path (issue 34: --frames-on cpu|gpu).
// CPU path (ffmpeg decode + sharp), from the frame pipeline's run on a 16-core H200 host
// (bench/device/results/SUMMARY.md, run 3, pool 15; 720p natural videos):
//   decode: 147.5 CPU s for 12,200 stored frames decoded once  → 12.1 ms a stored 720p frame
//   JPEG (resize + encode, sharp): (305.9 − 147.5) CPU s for 14,488 distinct JPEGs → 10.9 ms a JPEG
// Both scale here with the stored video's pixels (a 480p store costs 0.44×); an estimate between the measured
// points, as is the JPEG cost's independence from the size sent.
// GPU path (NVDEC + GPU Lanczos-3 + nvJPEG): the device's measured costs per video class (gpuFrameCosts.ts):
// host CPU (the helper and its ffmpeg), the wall a video holds a preparation slot, and the GPU time taken from
// the model's kernels.
import type { SimRequest, SimVideo } from './workload';
import { imageSize } from './workload';

export const DECODE_S_PER_720P_FRAME = 147.5 / 12_200;
export const JPEG_S_PER_720P_SOURCE = (305.9 - 147.5) / 14_488;
const PX_720P = 1280 * 720;

function scale(v: SimVideo): number {
  return (v.width * v.height) / PX_720P;
}

/** One video's frames: host CPU seconds, the least wall its preparation takes whatever the cores, GPU seconds taken. */
export interface VideoFrameCost {
  cpuS: number;
  minWallS: number;
  gpuS: number;
}

export interface FrameCostModel {
  name: string;
  /** Frames decoded (stored frames 0..lastFrame) and distinct JPEGs made for one video. */
  video(v: SimVideo, decodedFrames: number, jpegs: number): VideoFrameCost;
}

export const CPU_FRAMES: FrameCostModel = {
  name: 'cpu (ffmpeg + sharp)',
  video: (v, decoded, jpegs) => ({ cpuS: (decoded * DECODE_S_PER_720P_FRAME + jpegs * JPEG_S_PER_720P_SOURCE) * scale(v), minWallS: 0, gpuS: 0 }),
};

/** Frames decoded (up to the last frame any request needs) and distinct (frame, dims) JPEGs of one video. */
export function videoFrameWork(v: SimVideo): { decoded: number; jpegs: number } {
  let last = -1;
  const distinct = new Set<number>();
  for (const r of v.requests) {
    for (const id of r.group.images) {
      distinct.add(id);
      const frame = id & 0x7ff;
      if (frame > last) last = frame;
    }
  }
  return { decoded: last + 1, jpegs: distinct.size };
}

/**
 * The frame pipeline's cost for one video (decode once up to the last frame any request needs, each distinct
 * (frame, dims) JPEG once): what today's and the tuned engine pay.
 */
export function pipelineCpuS(v: SimVideo, model: FrameCostModel = CPU_FRAMES): VideoFrameCost & { jpegs: number } {
  const w = videoFrameWork(v);
  return { ...model.video(v, w.decoded, w.jpegs), jpegs: w.jpegs };
}

/**
 * A seed-like runner makes each request's frames for that request alone. Charged here as decoding only the
 * frames it sends plus one JPEG each — a floor (seeking to a frame decodes from the keyframe before it).
 */
export function perRequestCpuS(v: SimVideo, r: SimRequest): number {
  return r.group.images.length * (DECODE_S_PER_720P_FRAME + JPEG_S_PER_720P_SOURCE) * scale(v);
}

/** Dims of an image id (its video's size code). */
export function imageDims(v: SimVideo, id: number): { width: number; height: number } {
  return v.sizes[imageSize(id)];
}
