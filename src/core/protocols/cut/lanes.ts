// How many videos are cut at once and on which GPU (SPEC-AVTIME-DATA §2): `--jobs-per-gpu` × the visible GPUs, each
// job pinned with CUDA_VISIBLE_DEVICES, capped by --max-jobs. With no GPU visible (the builtin cutter needs none)
// the slots are --max-jobs, else the host's cores. Pure.
export { visibleGpus } from '../../serving/gpus';

export interface Lane {
  gpu: string | null;
}

export function cutLanes(gpus: readonly string[], jobsPerGpu: number, maxJobs: number | null, cores: number): Lane[] {
  if (gpus.length === 0) return Array.from({ length: Math.max(1, maxJobs ?? cores) }, () => ({ gpu: null }));
  // Round-robin over the GPUs, so a --max-jobs cap still spreads the jobs.
  const n = Math.max(1, Math.min(jobsPerGpu * gpus.length, maxJobs ?? Infinity));
  return Array.from({ length: n }, (_, i) => ({ gpu: gpus[i % gpus.length] }));
}
