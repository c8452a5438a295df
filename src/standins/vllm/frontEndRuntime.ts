// The stand-in's API-server front end, driven by the pure model in ./cost/frontEnd.ts: each image is loaded on
// the media pool (VLLM_MEDIA_LOADING_THREAD_COUNT workers, vllm/envs.py, default 8), then the request's
// `process_inputs` runs on the one API thread (vllm/v1/engine/async_llm.py add_request → v1/engine/processor.py),
// one request at a time, hashing, looking up and processing its images against the processor cache
// (vllm/multimodal/processing.py _cached_apply_hf_processor; cache sized by --mm-processor-cache-gb).
// With `delay` the modelled seconds are waited (divided by `speed`); without, they are only accounted.
import { MediaPool, loadSeconds, processInputs, type FrontEndImage, type RequestFrontEnd } from './cost/frontEnd';
import { ProcessorCache } from './cost/processorCache';

const sleep = (s: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, s * 1000)));

export interface FrontEndCounters {
  /** Model seconds of the API thread's work (the accounted front-end time). */
  threadBusyS: number;
  /** Model seconds of media-pool work (decode), all threads together. */
  mediaBusyS: number;
  mmQueries: number;
  mmHits: number;
}

export class FrontEndRuntime {
  readonly cache: ProcessorCache | null;
  private readonly pool: MediaPool;
  private readonly startMs = performance.now();
  private thread: Promise<void> = Promise.resolve();
  readonly counters: FrontEndCounters = { threadBusyS: 0, mediaBusyS: 0, mmQueries: 0, mmHits: 0 };

  constructor(
    cacheGb: number,
    mediaThreads: number,
    private readonly delay: boolean,
    private readonly speed: number,
  ) {
    this.cache = cacheGb > 0 ? ProcessorCache.fromGb(cacheGb) : null;
    this.pool = new MediaPool(mediaThreads);
  }

  private simNowS(): number {
    return ((performance.now() - this.startMs) / 1000) * this.speed;
  }

  async process(images: readonly FrontEndImage[]): Promise<RequestFrontEnd> {
    const loads = images.map(loadSeconds);
    const now = this.simNowS();
    const loadedAt = this.pool.run(now, loads);
    this.counters.mediaBusyS += loads.reduce((s, x) => s + x, 0);
    if (this.delay) await sleep((loadedAt - now) / this.speed);
    const prev = this.thread;
    let release = () => {};
    this.thread = new Promise<void>((r) => (release = r));
    await prev;
    try {
      const r = processInputs(images, this.cache);
      this.counters.threadBusyS += r.threadS;
      this.counters.mmQueries += images.length;
      this.counters.mmHits += r.hits;
      if (this.delay) await sleep(r.threadS / this.speed);
      return r;
    } finally {
      release();
    }
  }
}

/** VLLM_MEDIA_LOADING_THREAD_COUNT as vllm/envs.py reads it: an int, default 8. */
export function mediaLoadingThreads(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VLLM_MEDIA_LOADING_THREAD_COUNT;
  if (raw === undefined || raw === '') return 8;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`VLLM_MEDIA_LOADING_THREAD_COUNT: expected a positive integer, got '${raw}'`);
  return n;
}
