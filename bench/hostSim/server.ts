// One simulated vLLM 0.11 server: the API process (media-loading pool, one API thread, the processor cache) and
// the engine core (the GPU's scheduler steps), all from the stand-in's pure cost model
// (src/standins/vllm/cost/), driven here on simulated time. The prefix cache is an LRU of the groups whose
// images were prefilled on this server (a group's requests share every token before the question), bounded by
// the KV cache's tokens.
import type { SimClock } from './clock';
import type { SimGroup, SimRequest, SimVideo } from './workload';
import { imageDims } from './ourFrames';
import { bodyParseSeconds, fetchSeconds, type Transport } from './transport';
import { ApiThread, MediaPool, loadSeconds, type FrontEndImage } from '../../src/standins/vllm/cost/frontEnd';
import { processInputsFast } from './frontEndFast';
import { cacheCapacityBytes } from '../../src/standins/vllm/cost/processorCache';
import { FastLru } from './fastLru';
import { GpuEngineModel } from '../../src/standins/vllm/cost/gpuEngine';

export interface ServerConfig {
  /** --mm-processor-cache-gb (GiB; 0 = off). */
  processorCacheGb: number;
  /** VLLM_MEDIA_LOADING_THREAD_COUNT. */
  mediaThreads: number;
  /** The API process's torch threads (OMP_NUM_THREADS): the HF processor's speed (processorThreads.ts). */
  processorThreads: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  /** GPU seconds per H200-transformers second (the cost model's calibration scale). */
  gpuScale: number;
  /** KV cache of the GPU in tokens (the prefix cache lives in it). */
  kvTokens: number;
  transport: Transport;
  /** Send each image part's uuid (the JPEG's sha256): it replaces vLLM's pixel hash. */
  uuid: boolean;
}

/** Tokens an answer takes: a letter and the end of turn (temperature 0, max_tokens 128). */
const OUTPUT_TOKENS = 2;

/**
 * Each group's images as the cost model takes them, made once and shared by every send and server (a plan sends
 * ~25 million images). The key is the image id itself: ProcessorCache keys a Map, and a number keys it as well as
 * its decimal string would, without making ~25 million strings. Groups are forgotten once answered.
 */
export class ImageBook {
  private readonly groups = new Map<SimGroup, { images: FrontEndImage[]; loads: number[] }>();

  constructor(private readonly cfg: Pick<ServerConfig, 'uuid' | 'transport'>) {}

  of(video: SimVideo, g: SimGroup): { images: FrontEndImage[]; loads: number[] } {
    let p = this.groups.get(g);
    if (p) return p;
    const images: FrontEndImage[] = new Array(g.images.length);
    const loads: number[] = new Array(g.images.length);
    for (let i = 0; i < g.images.length; i++) {
      const d = imageDims(video, g.images[i]);
      const key = g.images[i] as unknown as string;
      images[i] = { key, width: d.width, height: d.height, uuid: this.cfg.uuid ? key : null };
      loads[i] = loadSeconds(images[i]) + fetchSeconds(this.cfg.transport, d.width, d.height);
    }
    p = { images, loads };
    this.groups.set(g, p);
    return p;
  }

  forget(g: SimGroup): void {
    this.groups.delete(g);
  }
}

export class SimServer {
  private readonly pool: MediaPool;
  private readonly api = new ApiThread();
  private readonly cache: FastLru | null;
  private readonly engine: GpuEngineModel<number>;
  private readonly waiting = new Map<number, { group: SimGroup; done: () => void }>();
  /** Groups whose image prefix is in the KV cache (Map order = recency), with their tokens. */
  private readonly prefix = new Map<SimGroup, number>();
  private prefixTokens = 0;
  private stepping = false;
  private nextId = 0;
  imagesSent = 0;
  imagesProcessed = 0;
  /** Seconds the API thread spent in the HF processor (its torch threads held processorThreads cores meanwhile). */
  processS = 0;
  prefixHitTokens = 0;
  promptTokens = 0;

  constructor(
    private readonly clock: SimClock,
    readonly cfg: ServerConfig,
    private readonly book: ImageBook,
  ) {
    this.pool = new MediaPool(cfg.mediaThreads);
    this.cache = cfg.processorCacheGb > 0 ? new FastLru(cacheCapacityBytes(cfg.processorCacheGb)) : null;
    this.engine = new GpuEngineModel<number>({ maxNumSeqs: cfg.maxNumSeqs, maxNumBatchedTokens: cfg.maxNumBatchedTokens, gpuScale: cfg.gpuScale });
  }

  get apiBusyS(): number {
    return this.api.busyS;
  }
  get mediaBusyS(): number {
    return this.pool.busyS;
  }
  get gpuBusyS(): number {
    return this.engine.busyS;
  }

  /** Sends one request now; resolves when its answer is back. */
  submit(video: SimVideo, req: SimRequest): Promise<void> {
    return new Promise((resolve) => {
      const g = req.group;
      const { images, loads } = this.book.of(video, g);
      this.imagesSent += images.length;
      const loaded = this.pool.run(this.clock.now, loads);
      this.clock.at(loaded, () => {
        // The API thread takes requests in the order their images are loaded (chat_utils awaits them all).
        const fe = processInputsFast(images, this.cache, this.cfg.processorThreads);
        this.imagesProcessed += fe.misses;
        this.processS += fe.processS;
        const { endS } = this.api.run(this.clock.now, fe.threadS + bodyParseSeconds(this.cfg.transport, images.length, g.width, g.height));
        this.clock.at(endS, () => this.toEngine(req, resolve));
      });
    });
  }

  private toEngine(req: SimRequest, done: () => void): void {
    const id = this.nextId++;
    const g = req.group;
    this.waiting.set(id, { group: g, done });
    this.promptTokens += req.promptTokens;
    this.engine.add({
      id,
      promptTokens: req.promptTokens,
      frames: g.images.length,
      outputTokens: OUTPUT_TOKENS,
      lookupCachedTokens: () => {
        const hit = this.prefix.get(g);
        if (hit === undefined) return 0;
        this.prefix.delete(g);
        this.prefix.set(g, hit);
        this.prefixHitTokens += hit;
        return hit;
      },
      cachedFrames: (cached) => (cached >= g.imageTokens ? g.images.length : 0),
    });
    this.kick();
  }

  private kick(): void {
    if (this.stepping || !this.engine.hasWork) return;
    const r = this.engine.step();
    if (!r) return;
    this.stepping = true;
    this.clock.at(this.clock.now + r.durationS, () => {
      this.stepping = false;
      for (const id of r.prefilled) this.remember(this.waiting.get(id)!.group);
      for (const id of r.finished) {
        const w = this.waiting.get(id)!;
        this.waiting.delete(id);
        w.done();
      }
      this.kick();
    });
  }

  /** A group's image prefix enters the prefix cache (least recently used groups out past the KV budget). */
  private remember(g: SimGroup): void {
    if (g.imageTokens === 0 || this.prefix.has(g)) return;
    this.prefix.set(g, g.imageTokens);
    this.prefixTokens += g.imageTokens;
    for (const [k, t] of this.prefix) {
      if (this.prefixTokens <= this.cfg.kvTokens) break;
      this.prefix.delete(k);
      this.prefixTokens -= t;
    }
  }
}
