// doctor's line for frames on the GPU (issue 34): can this host make FP's frames with NVDEC and a CUDA torch
// (frames/gpu/probe.ts), and what the whole sweep saved with it, end to end (issue 45: SWEEP_CPU_S_PER_VIDEO; the
// helper bench's per-video costs, bench/gpuFrames run 4 on nvidia-h100-x1, stay for the host model).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from '../../../doctor/schema';
import { defaultGpuHelperPath, probeGpuFrames, type GpuFramesProbe } from '../frames/gpu/probe';

/** The whole-sweep bench's results file the saving below is taken from (test-tied: gpuFramesOn.test.ts). */
export const SWEEP_RESULTS_FILE = 'bench/gpuSweep/results/2026-12-07-h100-sweep-main-9dbb0eb.json';

/** The modes of that file the saving compares (the product's defaults for each path). */
export const SWEEP_MODES = { cpu: 'cpu', gpu: 'gpu' } as const;

/**
 * The whole sweep's marginal video, CPU-s of our whole process tree (the run, its helpers, every ffmpeg, the stand-in
 * servers), each path: measured end to end on one H100 by bench/gpuSweep (the product's own `fpsweep run` on textured
 * fixtures of 14 and 56 videos, the stand-in loading 8 s as vLLM loads its model, so the helpers are warm before the
 * first video and every video of a GPU run is made on the GPU; two gpu runs and one cpu run a size, one machine; the
 * difference of the means over 42 videos; SWEEP_RESULTS_FILE, issue 45's session 20: the helper decodes with NVDEC in
 * its own process). doctor's and the knob's saving: these, not the helper alone. Session 19's H200 file said
 * 11.8 -> 2.6 with ffmpeg's NVDEC; on an H100 in one call (…-gpu45e-40093e4.json): 2.33 a video with ffmpeg's, 1.55
 * with the helper's own.
 */
export const SWEEP_CPU_S_PER_VIDEO = {
  cpu: (590.76 - 147.69) / 42,
  gpu: ((81.91 + 77.6) / 2 - (26.25 + 26.32) / 2) / 42,
};

/** One 1024-frame 720p video with the default conditions' 356 distinct JPEGs, host CPU seconds (the helper bench). */
export const CPU_PATH_S_PER_720P_VIDEO = 1024 * (147.5 / 12_200) + 356 * ((305.9 - 147.5) / 14_488);
/** The same video on the GPU path beside a busy GPU (helper + its ffmpeg, 4 helpers on the GPU), measured. */
export const GPU_PATH_S_PER_720P_VIDEO = 1.54;

/**
 * GPU seconds a 720p video's frames take from the model beside them (bench/gpuFrames runs 8a and 8b: 4 helpers
 * beside a model-shaped matmul on one H100, the same machine minutes apart). Without MPS the GPU time-slices
 * between the helpers' CUDA contexts (ffmpeg's NVDEC, the resize) and the model's; with NVIDIA's Multi-Process
 * Service their kernels share the SMs instead (run 5/6: the NVDEC decode alone took 0.089 s a video, 0.012 with MPS).
 */
export const FRAMES_GPU_S_PER_720P_VIDEO = { mpsOff: 0.2, mpsOn: 0.059 };

/**
 * Whether NVIDIA's MPS control daemon is up for CUDA processes started from this environment: its pipe directory
 * (CUDA_MPS_PIPE_DIRECTORY, default /tmp/nvidia-mps: the CUDA MPS documentation) holds its `control` socket.
 */
export function mpsPipe(env: NodeJS.ProcessEnv, exists: (p: string) => boolean = existsSync): string | null {
  const dir = env.CUDA_MPS_PIPE_DIRECTORY || '/tmp/nvidia-mps';
  return exists(path.join(dir, 'control')) ? dir : null;
}

function mpsWords(pipe: string | null): string {
  const { mpsOff, mpsOn } = FRAMES_GPU_S_PER_720P_VIDEO;
  return pipe
    ? `MPS is on (${pipe}): the frames take ~${mpsOn} GPU-s a 720p video from the model (${mpsOff} without; measured on an H100)`
    : `MPS is off: the frames take ~${mpsOff} GPU-s a 720p video from the model by time-slicing, ~${mpsOn} with MPS on ` +
        '(`nvidia-cuda-mps-control -d` as the user who runs the servers; it is host-wide, and a fatal GPU fault in one ' +
        'client ends every client on that GPU)';
}

export function gpuFramesLine(found: GpuFramesProbe, pipe: string | null = null): DoctorLine {
  const base = { id: 'gpu-frames', title: 'frames on the GPU' };
  const { cpu, gpu } = SWEEP_CPU_S_PER_VIDEO;
  const predicted =
    `the whole sweep measured end to end on an H100 took ${Math.round(100 * (1 - gpu / cpu))} % less CPU a video ` +
    `(${cpu.toFixed(1)} → ${gpu.toFixed(1)} CPU-s of our process tree a marginal video: the run, helpers, ffmpeg, servers)`;
  if (!found.ok) {
    return { ...base, status: 'ok', detail: `not available, frames stay on the CPU: ${found.reasons.join('; ')}`, action: null };
  }
  return {
    ...base,
    status: 'ok',
    detail: `available (${found.gpu ?? 'GPU'}: NVDEC, torch ${found.torch}, pillow ${found.pillow}); ${predicted}; ${mpsWords(pipe)}`,
    action: 'when the pilot finds the host CPU-bound, run with --frames-on gpu (or auto)',
  };
}

export async function checkGpuFrames(env: NodeJS.ProcessEnv): Promise<DoctorLine> {
  const found = await probeGpuFrames({ ffmpegPath: env.FFMPEG_BIN || 'ffmpeg', pythonPath: env.PYTHON || 'python3', helperPath: defaultGpuHelperPath(), env });
  return gpuFramesLine(found, mpsPipe(env));
}
