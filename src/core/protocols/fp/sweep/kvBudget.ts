// How many prompt tokens one server may have in flight (issue 17): what its GPU's KV cache holds for
// Qwen3-VL-8B (../doctor/context.ts's arithmetic: memory × GPU_UTIL − weights − reserve, 147,456 B a token).
// Requests whose prompts together fit in the KV cache are all prefilled at once without vLLM preempting and
// recomputing one (vllm/v1/core/sched/scheduler.py preempts the newest running request when a step cannot
// allocate its blocks). The count cap (WORKERS) stays; this one lets many short requests through while
// keeping a few long ones from crowding the cache. A speed knob: what each request sends is unchanged.
import { KV_BYTES_PER_TOKEN, RESERVE_BYTES, WEIGHTS_BYTES } from '../doctor/context';

/**
 * Videos a server works on at once (the scheduler's maxOpenVideos): their images must fit its processor cache
 * (../doctor/processorCache.ts checks the plan's costliest against it). Four is what MIN_LEADERS_IN_FLIGHT asks
 * for anyway; the host bench (bench/hostSim) measures the bound as neutral on time and +2 % processor-cache
 * hits at 16 GiB, more where the cache is smaller.
 */
export const OPEN_VIDEOS_PER_SERVER = 4;

/** KV-cache tokens of a GPU of `memoryMiB` at `gpuUtil` (0 when the weights do not fit). */
export function fpKvTokens(memoryMiB: number, gpuUtil: number): number {
  const bytes = memoryMiB * 1024 * 1024 * gpuUtil - WEIGHTS_BYTES - RESERVE_BYTES;
  return Math.max(0, Math.floor(bytes / KV_BYTES_PER_TOKEN));
}

/** Predicted prompt tokens a server may have in flight: 90 % of its KV tokens (the rest: answers, block rounding). */
export function fpInflightTokenBudget(kvTokens: number): number {
  return Math.floor(kvTokens * 0.9);
}

/**
 * A server's slot in the scheduler. With its KV cache known, as many requests as vLLM runs at once (MAX_SEQS) go
 * to it, as long as their predicted prompt tokens fit its KV cache: short requests pile up enough to keep the front
 * end and the GPU busy, long ones do not crowd each other out. Unknown (servers given with --endpoints): WORKERS.
 */
export function fpServerSlot(
  endpoint: string,
  o: { workers: number; maxSeqs: number },
  kvTokens: number | null,
): { endpoint: string; capacity: number; tokenBudget?: number } {
  if (kvTokens === null || kvTokens <= 0) return { endpoint, capacity: o.workers };
  return { endpoint, capacity: Math.max(o.workers, o.maxSeqs), tokenBudget: fpInflightTokenBudget(kvTokens) };
}
