/**
 * vLLM 0.11's API-server front end for one chat request, as a pure model in simulated seconds.
 *
 * Exports: processInputs(images, cache) → the API thread's seconds and the per-image load seconds (mutates the
 * processor cache as vLLM does); MediaPool (VLLM_MEDIA_LOADING_THREAD_COUNT workers, earliest free first);
 * ApiThread (one thread per server: work runs one piece at a time); frontEndFloorS(requests).
 *
 * Rules followed (vLLM 0.11):
 *  - vllm/entrypoints/chat_utils.py + vllm/multimodal/utils.py (MediaConnector.fetch_image_async →
 *    `loop.run_in_executor(global_thread_pool, …)`): every image is loaded (base64/file read, PIL decode) on a
 *    thread pool of `VLLM_MEDIA_LOADING_THREAD_COUNT` threads (vllm/envs.py, default 8), whether or not it will
 *    hit the processor cache; the request waits for all its images.
 *  - vllm/v1/engine/async_llm.py `AsyncLLM.add_request` → vllm/v1/engine/processor.py `Processor.process_inputs`
 *    runs on the API server's event-loop thread: one Python thread per API server, one request at a time.
 *  - vllm/multimodal/processing.py `_hash_mm_items` / `_cached_apply_hf_processor`: every item is hashed
 *    (vllm/multimodal/hasher.py, blake3 over the decoded pixels), or takes the part's `uuid` in place of the hash
 *    (read at the v0.11.0 tag, f71952c1c); items found in the processor cache skip the HF processor; only the misses
 *    are processed, then stored. (With the processor cache AND prefix caching off, 0.11.0's process_inputs swaps
 *    every uuid for a request-id one and hashes nothing: not modelled, our launcher keeps prefix caching on.)
 *  - the HF processor's torch ops use the API process's torch threads (`processorThreads`, from OMP_NUM_THREADS;
 *    vLLM 0.11 sets none there: processorThreads.ts). Default 1, the calibration's measurement.
 */
import { REQUEST_MS, PER_ITEM_MS, processorMs, hashMs, jpegDecodeMs } from './calibration';
import { ProcessorCache, qwen3vlItemBytes } from './processorCache';

/** VLLM_MEDIA_LOADING_THREAD_COUNT's default (vllm/envs.py). */
export const DEFAULT_MEDIA_LOADING_THREADS = 8;

export interface FrontEndImage {
  /** Content hash of the image (what vLLM's pixel hash tells apart). */
  key: string;
  width: number;
  height: number;
  /** The part's `uuid`, when the client sent one: it replaces the pixel hash (and is the cache key). */
  uuid?: string | null;
}

export interface RequestFrontEnd {
  /** Seconds each image takes on the media-loading pool (decode). */
  loadS: number[];
  /** Seconds of the API thread for this request: fixed + hashing + per-item + HF processor on misses. */
  threadS: number;
  hashS: number;
  processS: number;
  hits: number;
  misses: number;
}

/** Seconds one image takes on the media pool (PIL decode; reading the file or base64 is small next to it). */
export function loadSeconds(img: FrontEndImage): number {
  return jpegDecodeMs(img.width * img.height) / 1000;
}

/**
 * `Processor.process_inputs` for one request: hashes (or takes uuids), looks every item up in `cache` (null =
 * `--mm-processor-cache-gb 0`), runs the processor on the misses, stores them. Mutates `cache`.
 */
export function processInputs(images: readonly FrontEndImage[], cache: ProcessorCache | null, processorThreads = 1): RequestFrontEnd {
  let hashS = 0;
  let processS = 0;
  let hits = 0;
  for (const img of images) {
    const px = img.width * img.height;
    const key = img.uuid ?? img.key;
    if (!img.uuid) hashS += hashMs(px) / 1000;
    if (cache?.lookup(key)) {
      hits++;
      continue;
    }
    processS += processorMs(px, processorThreads) / 1000;
    cache?.insert(key, qwen3vlItemBytes(img.width, img.height));
  }
  const threadS = REQUEST_MS / 1000 + (images.length * PER_ITEM_MS) / 1000 + hashS + processS;
  return { loadS: images.map(loadSeconds), threadS, hashS, processS, hits, misses: images.length - hits };
}

/**
 * The API thread's floor for a list of requests: every send pays its hashing and per-item work, and each
 * distinct image (by uuid or content) is processed exactly once — every repeat a cached hit.
 */
export function frontEndFloorS(requests: readonly (readonly FrontEndImage[])[], processorThreads = 1): number {
  const seen = new Set<string>();
  let s = 0;
  for (const images of requests) {
    s += REQUEST_MS / 1000 + (images.length * PER_ITEM_MS) / 1000;
    for (const img of images) {
      const px = img.width * img.height;
      if (!img.uuid) s += hashMs(px) / 1000;
      const key = img.uuid ?? img.key;
      if (seen.has(key)) continue;
      seen.add(key);
      s += processorMs(px, processorThreads) / 1000;
    }
  }
  return s;
}

/** A pool of `threads` workers in simulated time: each job goes to the worker that is free first. */
export class MediaPool {
  private readonly freeAt: number[];
  busyS = 0;

  constructor(readonly threads: number = DEFAULT_MEDIA_LOADING_THREADS) {
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`media loading threads must be a positive integer, got ${threads}`);
    this.freeAt = new Array<number>(threads).fill(0);
  }

  /** Runs `durations` (submitted at `readyS`, in order); returns when the last of them is done. */
  run(readyS: number, durations: readonly number[]): number {
    let done = readyS;
    for (const d of durations) {
      let w = 0;
      for (let i = 1; i < this.freeAt.length; i++) if (this.freeAt[i] < this.freeAt[w]) w = i;
      const end = Math.max(readyS, this.freeAt[w]) + d;
      this.freeAt[w] = end;
      this.busyS += d;
      done = Math.max(done, end);
    }
    return done;
  }
}

/** One thread in simulated time: a piece of work starts when both it is ready and the thread is free. */
export class ApiThread {
  freeAtS = 0;
  busyS = 0;

  run(readyS: number, seconds: number): { startS: number; endS: number } {
    const startS = Math.max(readyS, this.freeAtS);
    this.freeAtS = startS + seconds;
    this.busyS += seconds;
    return { startS, endS: this.freeAtS };
  }
}
