// Where the GPU frame helpers run, and how many (issue 34): GPU_HELPERS_PER_GPU on each GPU the servers use, so
// every GPU's NVDEC works and each server's model shares the frames' GPU time, instead of GPU 0 taking all of it.
import { listGpus, visibleGpus } from '../../../../serving/gpus';

/**
 * Helpers on one GPU. bench/gpuFrames run 3 (one H100 beside a model-shaped matmul, 720p H.264, 1024 stored frames):
 * 4 helpers made 1.10 videos/s at 1.74 host CPU-s a video; 8 made 1.63/s at 2.03 CPU-s; 12 and 16 no more videos/s
 * for more CPU (2.43, 2.77). On 4 GPUs, 4 each make the sweep's 19,475 videos in about 1.2 h, well inside the
 * GPU-bound 3 h: the CPU a video costs is what the 16-core host runs short of, so the cheaper pool is the default.
 */
export const GPU_HELPERS_PER_GPU = 4;

/** The GPUs' CUDA ids: CUDA_VISIBLE_DEVICES' entries when set, else nvidia-smi's; the first `ngpu` (NGPU) of them. */
export async function helperGpus(
  env: Readonly<Record<string, string | undefined>>,
  ngpu: number | undefined,
  detect: () => Promise<number[] | null> = listGpus,
): Promise<string[]> {
  const ids = env.CUDA_VISIBLE_DEVICES !== undefined ? visibleGpus(env, []) : ((await detect()) ?? []).map(String);
  return ngpu !== undefined ? ids.slice(0, ngpu) : ids;
}

/** Helpers at once: --decode-workers when given, else GPU_HELPERS_PER_GPU on each GPU (one GPU when none is listed). */
export function gpuHelperCount(gpus: readonly string[], decodeWorkers?: number): number {
  return decodeWorkers ?? GPU_HELPERS_PER_GPU * Math.max(1, gpus.length);
}

/**
 * Jobs one helper process takes at once, on its threads (issue 45: FP_GPU_HELPER_JOBS; default GPU_HELPERS_PER_GPU,
 * so one process a GPU: one import of torch, one CUDA context and one warm-up instead of four, ~4.4 CPU-s each on
 * the device). 1: a process a job, as before.
 */
export function gpuHelperJobs(env: Readonly<Record<string, string | undefined>>): number {
  const n = Number(env.FP_GPU_HELPER_JOBS);
  return Number.isInteger(n) && n >= 1 ? n : GPU_HELPERS_PER_GPU;
}
