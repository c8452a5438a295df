// Launch settings for vLLM 0.11's API-server front end, sized from the host (issue 17). Both change speed only.
//  - `--mm-processor-cache-gb`: the multimodal processor cache, an LRU of processed images per server
//    (vllm/multimodal/cache.py; default 4 GiB). A repeat of an image the cache holds skips the HF processor,
//    the costliest part of an image on the API thread. The sweep sends each distinct JPEG several times, so a
//    cache that holds the images of every video a server has open makes the repeats hits. We give the caches a
//    quarter of the host's RAM, split over the servers, counted twice per server (an assumption: in 0.11 the
//    API process's cache is mirrored by the engine core's), never below vLLM's default, at most 64 GiB each.
//  - `VLLM_MEDIA_LOADING_THREAD_COUNT` (vllm/envs.py, default 8): the threads that load and decode images
//    for one server. One per core the servers can share, never below the default.
//  - `OMP_NUM_THREADS`: torch's threads in the API process, where the HF image processor runs on every
//    processor-cache miss. vLLM 0.11 sets no thread count there (MultiprocExecutor sets OMP_NUM_THREADS=1 only
//    in the engine-core process, only when unset), so torch takes one thread per core in each of the servers'
//    API processes: 4 servers × 16 threads on 16 cores. Measured (bench/device/results/
//    2026-12-03-processor-threads.json, 4 processes at once, 32 images a call): 4.46 ms per 398×224 image at
//    1 thread each, 2.57 at 2, 2.09 at 3, 2.22 at 4, and 33.8 at 8 (32 threads on 16 cores spin against each
//    other). So each server gets the cores left after one per server (its engine core's loop) and one per
//    decode of our frame pipeline, shared out, at least 1, at most 4 (the most measured).
export const DEFAULT_MM_PROCESSOR_CACHE_GB = 4;
export const MAX_MM_PROCESSOR_CACHE_GB = 64;
export const DEFAULT_MEDIA_LOADING_THREADS = 8;
const GIB = 1024 ** 3;

/** Whole GiB of processor cache per server for a host with `ramBytes` of memory and `servers` servers. */
export function processorCacheGb(ramBytes: number, servers: number): number {
  if (!(ramBytes > 0) || !(servers >= 1)) throw new RangeError(`processorCacheGb: need RAM > 0 and ≥ 1 server, got ${ramBytes}, ${servers}`);
  const share = Math.floor((ramBytes * 0.25) / servers / 2 / GIB);
  return Math.min(MAX_MM_PROCESSOR_CACHE_GB, Math.max(DEFAULT_MM_PROCESSOR_CACHE_GB, share));
}

/** VLLM_MEDIA_LOADING_THREAD_COUNT for each of `servers` servers on a host of `cores` cores. */
export function mediaLoadingThreads(cores: number, servers: number): number {
  if (!(cores >= 1) || !(servers >= 1)) throw new RangeError(`mediaLoadingThreads: need ≥ 1 core and server, got ${cores}, ${servers}`);
  return Math.max(DEFAULT_MEDIA_LOADING_THREADS, Math.floor(cores / servers));
}

/** The most torch threads measured for the API process (src/standins/vllm/cost/processorThreads.ts). */
export const MAX_PROCESSOR_THREADS = 4;

/** OMP_NUM_THREADS for each of `servers` API processes on `cores` cores beside `decodePool` decodes of ours. */
export function processorThreads(cores: number, servers: number, decodePool: number): number {
  if (!(cores >= 1) || !(servers >= 1) || !(decodePool >= 0)) {
    throw new RangeError(`processorThreads: need ≥ 1 core and server and a decode pool ≥ 0, got ${cores}, ${servers}, ${decodePool}`);
  }
  return Math.min(MAX_PROCESSOR_THREADS, Math.max(1, Math.floor((cores - servers - decodePool) / servers)));
}
