// What our frames cost the host's CPU (the 16 cores the bench gives them), from the frame pipeline's run on a
// 16-core H200 host (bench/device/results/SUMMARY.md, run 3, pool 15; 720p natural videos):
//   decode: 147.5 CPU s for 12,200 stored frames decoded once  → 12.1 ms a stored 720p frame
//   JPEG (resize + encode, sharp): (305.9 − 147.5) CPU s for 14,488 distinct JPEGs → 10.9 ms a JPEG
// Both scale here with the stored video's pixels (a 480p store costs 0.44×); an estimate between the measured
// points, as is the JPEG cost's independence from the size sent.
import type { SimRequest, SimVideo } from './workload';
import { imageSize } from './workload';

export const DECODE_S_PER_720P_FRAME = 147.5 / 12_200;
export const JPEG_S_PER_720P_SOURCE = (305.9 - 147.5) / 14_488;
const PX_720P = 1280 * 720;

function scale(v: SimVideo): number {
  return (v.width * v.height) / PX_720P;
}

/**
 * The frame pipeline's CPU seconds for one video (decode once up to the last frame any request needs, each
 * distinct (frame, dims) JPEG once): what today's and the tuned engine pay.
 */
export function pipelineCpuS(v: SimVideo): { cpuS: number; jpegs: number } {
  let last = -1;
  const distinct = new Set<number>();
  for (const r of v.requests) {
    for (const id of r.group.images) {
      distinct.add(id);
      const frame = id & 0x7ff;
      if (frame > last) last = frame;
    }
  }
  const s = scale(v);
  return { cpuS: (last + 1) * DECODE_S_PER_720P_FRAME * s + distinct.size * JPEG_S_PER_720P_SOURCE * s, jpegs: distinct.size };
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
