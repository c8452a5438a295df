// The GPU frame path's costs per video class, as measured on the device (bench/gpuFrames: device_bench.py, then
// deriveCosts.ts writes bench/hostSim/measured/gpu-frames-*.json), as a FrameCostModel for the host bench.
// A sim video takes the class nearest its stored pixels, scaled by its pixels against that class (an estimate for
// the sizes between), and by the share of the stored frames it decodes.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { FrameCostModel } from './ourFrames';

export const measuredClassSchema = z.object({
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  storedFrames: z.number().int().positive(),
  jpegsPerVideo: z.number().int().positive(),
  /** Host CPU s for one video's frames on the GPU path (helper + its ffmpeg; the helper's CUDA start excluded). */
  cpuSPerVideo: z.number().nonnegative(),
  /** Of which the NVDEC decode of every stored frame (ffmpeg -hwaccel cuda -f null at the same pool). */
  decodeCpuSPerVideo: z.number().nonnegative(),
  /** Wall s a video holds one of `pool` preparation slots (pool helpers at once). */
  wallSPerVideo: z.number().positive(),
  /** Helpers at once on the one GPU measured: the host runs as many on each of its GPUs (helperGpus.ts). */
  pool: z.number().int().positive(),
  /** GPU s the frames took from a model-shaped matmul beside them, per video (interference). */
  gpuSTakenPerVideo: z.number().nonnegative(),
});

export const measuredGpuFramesSchema = z.object({
  device: z.string(),
  measuredAt: z.string(),
  command: z.string(),
  classes: z.record(z.string(), measuredClassSchema),
  /** Costs the file holds that were modelled, not measured, and why (empty when all were measured). */
  modelled: z.array(z.string()),
});
export type MeasuredGpuFrames = z.infer<typeof measuredGpuFramesSchema>;

export function readMeasuredGpuFrames(file: string): MeasuredGpuFrames {
  return measuredGpuFramesSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** Helpers a GPU the costs were measured at (the largest pool of the classes). */
export function gpuFramesPool(m: MeasuredGpuFrames): number {
  return Math.max(...Object.values(m.classes).map((c) => c.pool));
}

export function gpuFrameCosts(m: MeasuredGpuFrames): FrameCostModel {
  const classes = Object.values(m.classes);
  if (!classes.length) throw new Error('measured GPU frame costs: no video class');
  return {
    name: `gpu (NVDEC + GPU Lanczos-3 + libjpeg, measured on ${m.device})`,
    video(v, decoded, jpegs) {
      const px = v.width * v.height;
      const c = classes.reduce((best, k) => (Math.abs(k.width * k.height - px) < Math.abs(best.width * best.height - px) ? k : best));
      const pxScale = px / (c.width * c.height);
      const decodeShare = decoded / c.storedFrames;
      const jpegCpuS = Math.max(0, c.cpuSPerVideo - c.decodeCpuSPerVideo) / c.jpegsPerVideo;
      const jpegShare = jpegs / c.jpegsPerVideo;
      return {
        cpuS: (c.decodeCpuSPerVideo * decodeShare + jpegCpuS * jpegs) * pxScale,
        // The slot's wall: the measured video's, in proportion to the decode and JPEG work asked.
        minWallS: c.wallSPerVideo * pxScale * Math.max(decodeShare, jpegShare),
        gpuS: c.gpuSTakenPerVideo * pxScale * Math.max(decodeShare, jpegShare),
      };
    },
  };
}
