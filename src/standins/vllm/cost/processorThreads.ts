/**
 * The HF image processor's speed against the API process's torch thread count (issue 17), pure data and functions.
 *
 * Why a knob: transformers' fast Qwen2-VL image processor runs torch/torchvision ops (resize, rescale, normalize,
 * the patch reshape), which use torch's intra-op thread pool. vLLM 0.11's API process sets no thread count of its
 * own (only MultiprocExecutor sets OMP_NUM_THREADS=1, in the engine-core process, and only when the variable is
 * unset: vllm/v1/executor/multiproc_executor.py `set_multiprocessing_worker_envs`), so the launcher's
 * OMP_NUM_THREADS reaches the API process's torch. It changes speed only: the same ops, the same float32 results.
 *
 * Measured 2026-12-03 on the 16-core H200 host (bench/device/processor_threads.py,
 * bench/device/results/2026-12-03-processor-threads.json): transformers 5.17 `Qwen2VLImageProcessor` (the
 * torchvision backend), patch 16, merge 2, temporal 2; 32 random-noise PIL images per call, as vLLM hands a
 * request's processor-cache misses to the HF processor in one call (vllm/multimodal/processing.py
 * `_cached_apply_hf_processor`); FOUR processes at once, each with `threads` torch threads (4 servers on one host).
 * ms per image. At 1 thread it agrees with the calibration's 4.73 ms (4.46 here), so the model keeps that base and
 * takes only the ratio from this table. 4 × 8 threads on 16 cores was 33.8 ms (398×224): oversubscribed OpenMP
 * threads spin against each other, so the sizing rule never asks for more threads than cores.
 */

export interface ProcessorThreadRow {
  threads: number;
  /** ms per 398×224 image, 4 processes at once. */
  smallMs: number;
  /** ms per 1280×720 image, 4 processes at once. */
  largeMs: number;
}

export const PROCESSOR_THREADS_SHARED4: readonly ProcessorThreadRow[] = [
  { threads: 1, smallMs: 4.456, largeMs: 35.297 },
  { threads: 2, smallMs: 2.565, largeMs: 22.924 },
  { threads: 3, smallMs: 2.085, largeMs: 20.62 },
  { threads: 4, smallMs: 2.224, largeMs: 16.959 },
];

/** The thread counts measured (under 4-way sharing); the model refuses others rather than guess. */
export const MEASURED_PROCESSOR_THREADS: readonly number[] = PROCESSOR_THREADS_SHARED4.map((r) => r.threads);

const SMALL_PX = 398 * 224;
const LARGE_PX = 1280 * 720;

function row(threads: number): ProcessorThreadRow {
  const r = PROCESSOR_THREADS_SHARED4.find((x) => x.threads === threads);
  if (!r) throw new RangeError(`processor threads: measured for ${MEASURED_PROCESSOR_THREADS.join(', ')} only, got ${threads}`);
  return r;
}

/**
 * How many times faster the processor is with `threads` torch threads than with one, for an image of `pixels`:
 * the measured ratio at 398×224 and 1280×720, interpolated in log pixels between them, the nearer one outside.
 */
export function processorSpeedup(threads: number, pixels: number): number {
  const one = PROCESSOR_THREADS_SHARED4[0];
  const r = row(threads);
  const small = one.smallMs / r.smallMs;
  const large = one.largeMs / r.largeMs;
  const t = Math.min(1, Math.max(0, Math.log(pixels / SMALL_PX) / Math.log(LARGE_PX / SMALL_PX)));
  return small + (large - small) * t;
}

/**
 * CPU seconds per wall second of the processor with `threads` threads: OpenMP's workers spin while a parallel
 * region runs and between close regions, so each thread holds a core for the call's whole wall time.
 */
export function processorCoresHeld(threads: number): number {
  row(threads);
  return threads;
}
