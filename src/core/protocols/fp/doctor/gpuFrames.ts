// doctor's line for frames on the GPU (issue 34): can this host make FP's frames with NVDEC and a CUDA torch
// (frames/gpu/probe.ts), and what the host model predicts it saves. The figures are the device bench's
// (bench/gpuFrames, run 4 on nvidia-h100-x1, 2026-12-06: bench/hostSim/measured/gpu-frames.json) against the CPU
// path's constants of the host model (bench/hostSim/ourFrames.ts: 12.1 ms a stored 720p frame, 10.9 ms a JPEG).
import type { DoctorLine } from '../../../doctor/schema';
import { defaultGpuHelperPath, probeGpuFrames, type GpuFramesProbe } from '../frames/gpu/probe';

/** One 1024-frame 720p video with the default conditions' 356 distinct JPEGs, host CPU seconds. */
export const CPU_PATH_S_PER_720P_VIDEO = 1024 * (147.5 / 12_200) + 356 * ((305.9 - 147.5) / 14_488);
/** The same video on the GPU path beside a busy GPU (helper + its ffmpeg, 4 helpers on the GPU), measured. */
export const GPU_PATH_S_PER_720P_VIDEO = 1.54;

export function gpuFramesLine(found: GpuFramesProbe): DoctorLine {
  const base = { id: 'gpu-frames', title: 'frames on the GPU' };
  const saving = 1 - GPU_PATH_S_PER_720P_VIDEO / CPU_PATH_S_PER_720P_VIDEO;
  const predicted =
    `the host model predicts ${Math.round(100 * saving)} % less CPU for our frames ` +
    `(${CPU_PATH_S_PER_720P_VIDEO.toFixed(1)} → ${GPU_PATH_S_PER_720P_VIDEO.toFixed(1)} CPU-s a 1024-frame 720p video; measured on an H100)`;
  if (!found.ok) {
    return { ...base, status: 'ok', detail: `not available, frames stay on the CPU: ${found.reasons.join('; ')}`, action: null };
  }
  return {
    ...base,
    status: 'ok',
    detail: `available (${found.gpu ?? 'GPU'}: ffmpeg's cuda hwaccel, torch ${found.torch}, pillow ${found.pillow}); ${predicted}`,
    action: 'when the pilot finds the host CPU-bound, run with --frames-on gpu (or auto)',
  };
}

export async function checkGpuFrames(env: NodeJS.ProcessEnv): Promise<DoctorLine> {
  const found = await probeGpuFrames({ ffmpegPath: env.FFMPEG_BIN || 'ffmpeg', pythonPath: env.PYTHON || 'python3', helperPath: defaultGpuHelperPath(), env });
  return gpuFramesLine(found);
}
