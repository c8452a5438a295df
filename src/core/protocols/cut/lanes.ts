// How many videos are cut at once and on which GPU (SPEC-AVTIME-DATA §2): `--jobs-per-gpu` × the visible GPUs, each
// job pinned with CUDA_VISIBLE_DEVICES, capped by --max-jobs. With no GPU visible (the builtin cutter needs none)
// the slots are --max-jobs, else the host's cores. Pure.
export interface Lane {
  gpu: string | null;
}

/** The GPUs a job may use: CUDA_VISIBLE_DEVICES when set (its entries as given), else nvidia-smi's indices. */
export function visibleGpus(env: Readonly<Record<string, string | undefined>>, smiIndices: readonly number[]): string[] {
  const cvd = env.CUDA_VISIBLE_DEVICES;
  if (cvd !== undefined) {
    const list = cvd
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // CUDA's own rule: "-1" (or any invalid id) hides every GPU from the first invalid one on.
    const cut = list.findIndex((s) => s.startsWith('-'));
    return cut === -1 ? list : list.slice(0, cut);
  }
  return smiIndices.map(String);
}

export function cutLanes(gpus: readonly string[], jobsPerGpu: number, maxJobs: number | null, cores: number): Lane[] {
  if (gpus.length === 0) return Array.from({ length: Math.max(1, maxJobs ?? cores) }, () => ({ gpu: null }));
  // Round-robin over the GPUs, so a --max-jobs cap still spreads the jobs.
  const n = Math.max(1, Math.min(jobsPerGpu * gpus.length, maxJobs ?? Infinity));
  return Array.from({ length: n }, (_, i) => ({ gpu: gpus[i % gpus.length] }));
}
