// FramePipeline: for one video, the union of the (frame, size) pairs every pending request needs,
// decoded once and encoded once each; frames already in the store are not decoded again, and a video
// whose frames are all stored never starts ffmpeg. See index.ts for the API as the runner uses it.
import { promises as fs } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { VideoMeta } from '../package/schemas';
import { decodeSelectedFrames, DecodeError, DecodeInterrupted } from './ffmpegDecode';
import { encodeJpeg, type Dims } from './jpeg';
import type { GpuFrameMaker, GpuHelperLease } from './gpu/gpuMaker';
import { ByteBudget, KeyedMutex, Limiter } from './limits';
import { resolveOptions, type FramePipelineOptions, type FramePipelineSettings } from './options';
import * as path from 'node:path';
import { FrameStore, sha256Hex, type StagedFrame, type StoreStats, type VideoFolder } from './store';

/** One pending (item, condition) request of a video, as planFrames gave it. */
export interface FrameRequest {
  /** The caller's id for it (e.g. `${benchmark}/${item_id}/${condition}`); unique within the job. */
  key: string;
  /** Stored frame indices in the order they are sent (planFrames' `indices`). */
  indices: readonly number[];
  /** Dims actually sent (planFrames' `width`/`height`; the stored dims for `storage`). */
  width: number;
  height: number;
}

/** Everything pending for one stored video. */
export interface VideoJob {
  hash: string;
  /** PackageLayout.videoFile(hash). */
  videoPath: string;
  /** The validated meta.json (videoMetaSchema). */
  meta: Pick<VideoMeta, 'width' | 'height' | 'n_frames'>;
  requests: readonly FrameRequest[];
}

/** 'interrupted': ffmpeg was stopped by a signal from outside (the run is being stopped): not the video's failure. */
export type FrameFailureKind = 'decode' | 'no_video' | 'interrupted';

export interface PreparedFrames {
  ok: true;
  key: string;
  /** One JPEG per requested index, in request order (a repeated index repeats the path). */
  paths: string[];
  /** This request's share of the video's decode time (see PreparedVideo.decodeSeconds). */
  decodeSeconds: number;
}

export interface FailedFrames {
  ok: false;
  key: string;
  kind: FrameFailureKind;
  /** For failures.jsonl: what went wrong, with ffmpeg's last stderr lines or the numbers. */
  message: string;
  decodeSeconds: number;
}

export type PreparedRequest = PreparedFrames | FailedFrames;

export interface PreparedVideo {
  hash: string;
  /** One per job request, in job order. */
  requests: PreparedRequest[];
  get(key: string): PreparedRequest;
  /**
   * Wall seconds this video spent in ffmpeg + resize + JPEG in this call (0 when every frame came from
   * the store; queueing for a pool slot not included). Split across the requests in proportion to
   * their frame counts (`decodeSeconds` of each request), so the shares sum to this.
   */
  decodeSeconds: number;
  /** Frames ffmpeg decoded for this call (0 when it did not run). */
  decodedFrames: number;
  jpegsWritten: number;
  /** Distinct (frame, size) JPEGs that were already in the store. */
  jpegsReused: number;
  /** Unpins one request's frames (after its answer is recorded), or all of them; idempotent. */
  release(key?: string): void;
}

export interface PipelineStats {
  videosPrepared: number;
  videosDecoded: number;
  framesDecoded: number;
  jpegsWritten: number;
  jpegsReused: number;
  decodeSeconds: number;
  /** Videos made on each path and their summed seconds (issue 45: what `--frames-on auto` compares). */
  byPath: FramesByPath;
  /** Most raw-frame bytes held at once (bounded by maxBufferedBytes). */
  peakBufferedBytes: number;
  store: StoreStats;
}

/** Per path: videos made there and the seconds they took, each in its pool slot (decode to the last JPEG). */
export interface FramesByPath {
  cpu: { videos: number; seconds: number };
  gpu: { videos: number; seconds: number };
}

/** Where a video is made: a warm helper's lease (the GPU path) or none (the CPU); `free` gives back its CPU slot. */
interface Place {
  gpu: GpuFrameMaker | null;
  lease: GpuHelperLease | null;
  free: () => void;
}

const noop = (): void => undefined;

/** A video job that does not fit its meta.json: a bug in the caller, not a data problem. */
function validateJob(job: VideoJob): void {
  const { width: W, height: H, n_frames: n } = job.meta;
  const keys = new Set<string>();
  for (const r of job.requests) {
    if (keys.has(r.key)) throw new RangeError(`video ${job.hash}: request key '${r.key}' appears twice`);
    keys.add(r.key);
    if (!Number.isInteger(r.width) || !Number.isInteger(r.height) || r.width < 1 || r.height < 1 || r.width > W || r.height > H) {
      throw new RangeError(`video ${job.hash}: request ${r.key} asks ${r.width}x${r.height} from a ${W}x${H} video`);
    }
    for (const i of r.indices) {
      if (!Number.isInteger(i) || i < 0 || i >= n) {
        throw new RangeError(`video ${job.hash}: request ${r.key} asks frame ${i} of ${n}`);
      }
    }
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.stat(p)).isFile();
  } catch {
    return false;
  }
}

export class FramePipeline {
  readonly settings: FramePipelineSettings;
  private storePromise: Promise<FrameStore> | null = null;
  private readonly pool: Limiter;
  private readonly budget: ByteBudget;
  private readonly perVideo = new KeyedMutex();
  private readonly abort = new AbortController();
  /** Aborted by stopDecodes(): the run is stopping. */
  private readonly stopping = new AbortController();
  private readonly counters = {
    videosPrepared: 0,
    videosDecoded: 0,
    framesDecoded: 0,
    jpegsWritten: 0,
    jpegsReused: 0,
    decodeSeconds: 0,
  };
  private readonly byPath: FramesByPath = { cpu: { videos: 0, seconds: 0 }, gpu: { videos: 0, seconds: 0 } };
  /** Videos begun on each path (the alternation's count). */
  private readonly started = { cpu: 0, gpu: 0 };

  /**
   * Frames on the GPU (issue 34: --frames-on), or null for the CPU path (ffmpeg + sharp). A video goes to the GPU
   * only when a warm helper is idle at its turn (issue 45); otherwise it is made here on the CPU, so no video ever
   * waits for a helper to start (attachGpu: the maker may come once the probe has answered, after the first videos).
   */
  private gpu: GpuFrameMaker | null;

  constructor(opts: FramePipelineOptions, gpu: GpuFrameMaker | null = null) {
    this.settings = resolveOptions(opts);
    this.gpu = gpu;
    this.pool = new Limiter(this.settings.poolSize);
    this.budget = new ByteBudget(this.settings.maxBufferedBytes);
  }

  /** The GPU path from now on (its helpers take videos as they become warm); closed at once if this pipeline is. */
  attachGpu(gpu: GpuFrameMaker): void {
    if (this.abort.signal.aborted) {
      gpu.close();
      return;
    }
    if (this.gpu !== gpu) this.gpu?.close();
    this.gpu = gpu;
  }

  /** The store, indexed on first use. */
  store(): Promise<FrameStore> {
    // Checked from the containment root (the package root): a link at the store's own folder is refused too.
    this.storePromise ??= FrameStore.open(
      this.settings.root ?? path.dirname(path.resolve(this.settings.storeDir)),
      this.settings.storeDir,
      this.settings.storeCapBytes,
    );
    return this.storePromise;
  }

  /**
   * Makes every JPEG the job's requests need (decoding the video at most once) and pins them until
   * released. Data problems (missing video, undecodable video, frame count or size not as in
   * meta.json) come back as failed requests; a rejection means the caller's job was malformed or the
   * machine failed (disk full, ffmpeg missing, close()): treat it as fatal.
   */
  async prepare(job: VideoJob): Promise<PreparedVideo> {
    validateJob(job);
    if (this.abort.signal.aborted) throw new Error('frame pipeline is closed');
    const store = await this.store();
    const stored: Dims = { width: job.meta.width, height: job.meta.height };
    const requestPaths = job.requests.map((r) => r.indices.map((i) => store.framePath(job.hash, i, r)));
    // Pinned from the start, so an eviction while this job waits cannot take frames it will reuse.
    for (const paths of requestPaths) store.pin(paths);
    try {
      return await this.perVideo.run(job.hash, () => this.prepareLocked(job, store, stored, requestPaths));
    } catch (err) {
      for (const paths of requestPaths) store.unpin(paths);
      throw err;
    }
  }

  private async prepareLocked(job: VideoJob, store: FrameStore, stored: Dims, requestPaths: string[][]): Promise<PreparedVideo> {
    this.counters.videosPrepared++;
    if (!(await isFile(job.videoPath))) {
      return this.result(job, store, requestPaths, { kind: 'no_video', message: `${job.videoPath} is missing` }, 0, 0, 0, 0);
    }
    const video = await store.openVideo(job.hash);
    try {
      return await this.prepareInFolder(job, store, video, stored, requestPaths);
    } finally {
      await video.close();
    }
  }

  private async prepareInFolder(job: VideoJob, store: FrameStore, video: VideoFolder, stored: Dims, requestPaths: string[][]): Promise<PreparedVideo> {
    // Frames to reuse are read back once and checked against what we recorded (else made again).
    await store.syncVideo(video, requestPaths.flat());
    // The union of (frame, size) pairs not yet stored: index → sizes (by path, so each is made once).
    const missing = new Map<number, Map<string, Dims>>();
    const distinct = new Set<string>();
    job.requests.forEach((r, k) => {
      r.indices.forEach((index, j) => {
        const p = requestPaths[k][j];
        distinct.add(p);
        if (store.has(p)) return;
        let sizes = missing.get(index);
        if (!sizes) missing.set(index, (sizes = new Map()));
        sizes.set(p, { width: r.width, height: r.height });
      });
    });
    let missingCount = 0;
    for (const sizes of missing.values()) missingCount += sizes.size;
    const reused = distinct.size - missingCount;
    if (missing.size === 0) {
      store.touch(distinct);
      this.counters.jpegsReused += reused;
      return this.result(job, store, requestPaths, null, 0, 0, 0, reused);
    }

    // The pool slot is held while ffmpeg runs, not while the last JPEGs are made: the next video's
    // decode starts as this one's ends, and the raw-frame budget still bounds what is held.
    const place = await this.place();
    if (this.stopping.signal.aborted) {
      // A stopping run decodes nothing more (issue 43): the video stays to do, nothing is failed.
      place.free();
      if (place.lease) place.gpu?.giveBack(place.lease);
      const message = `the run is stopping: ${job.videoPath} was not decoded`;
      return this.result(job, store, requestPaths, { kind: 'interrupted', message }, 0, 0, 0, 0);
    }
    const decoded = await this.decodeMissing(job, video, stored, missing, place).finally(place.free);
    if (decoded.failure) {
      const kind = decoded.interrupted ? 'interrupted' : 'decode';
      return this.result(job, store, requestPaths, { kind, message: decoded.failure }, decoded.seconds, 0, 0, 0);
    }
    store.touch(distinct);
    this.counters.videosDecoded++;
    this.counters.framesDecoded += decoded.frames;
    this.counters.jpegsWritten += missingCount;
    this.counters.jpegsReused += reused;
    this.counters.decodeSeconds += decoded.seconds;
    return this.result(job, store, requestPaths, null, decoded.seconds, decoded.frames, missingCount, reused);
  }

  /**
   * Where the next video is made (issue 45). On the GPU path ('all'): a warm, idle helper at once; else, once every
   * helper is warm, the next helper that comes free (no CPU slot held: the CPU pool serves only until the helpers
   * are warm); else, while helpers still warm, whichever comes first of a CPU slot and a warm helper, so a helper
   * that warms takes a video at once even while every CPU slot is busy. Otherwise (the CPU path, a pilot's
   * 'alternate', or before the GPU is attached): a CPU slot, then a warm helper where it is the GPU's turn (the
   * slot is held while the helper works).
   */
  private async place(): Promise<Place> {
    const gpu = this.gpu?.isClosed === false ? this.gpu : null;
    if (gpu?.share === 'all') {
      const now = gpu.takeReady();
      if (now) return { gpu, lease: now, free: noop };
      if (gpu.allWarm) {
        const lease = await gpu.waitReady().lease;
        if (lease) return { gpu, lease, free: noop };
        return { gpu: null, lease: null, free: await this.pool.acquire() };
      }
      return this.firstOfCpuAndGpu(gpu);
    }
    const free = await this.pool.acquire();
    const g = this.gpu?.isClosed === false ? this.gpu : null;
    const gpuTurn = g !== null && (g.share === 'all' || this.started.gpu <= this.started.cpu);
    return { gpu: g, lease: gpuTurn ? g.takeReady() : null, free };
  }

  /** A CPU slot or a warm helper, whichever comes first; the other is given back as it comes. */
  private firstOfCpuAndGpu(gpu: GpuFrameMaker): Promise<Place> {
    return new Promise<Place>((resolve, reject) => {
      let settled = false;
      const wait = gpu.waitReady();
      const slot = this.pool.acquire();
      slot.then((free) => {
        if (settled) return free();
        settled = true;
        wait.cancel();
        resolve({ gpu: null, lease: null, free });
      }, reject);
      void wait.lease.then((lease) => {
        if (!lease) return; // none will come: the CPU slot decides
        if (settled) return gpu.giveBack(lease);
        settled = true;
        void slot.then((free) => free());
        resolve({ gpu, lease, free: noop });
      });
    });
  }

  /** One ffmpeg run; JPEGs go to temp files, renamed only once the frame count has been confirmed. */
  private async decodeMissing(
    job: VideoJob,
    video: VideoFolder,
    stored: Dims,
    missing: Map<number, Map<string, Dims>>,
    place: Place,
  ): Promise<{ failure: string | null; interrupted?: boolean; seconds: number; frames: number }> {
    const temps: StagedFrame[] = [];
    const started = process.hrtime.bigint();
    const { gpu, lease, free: onDecoderExit } = place;
    const where: keyof FramesByPath = lease ? 'gpu' : 'cpu';
    this.started[where]++;
    const made =
      lease && gpu
        ? await this.makeOnGpu(gpu, lease, job, video, stored, missing, onDecoderExit, started)
        : await this.makeOnCpu(job, video, stored, missing, onDecoderExit, temps, started);
    if (!made.failure) {
      this.byPath[where].videos++;
      this.byPath[where].seconds += made.seconds;
    }
    return made;
  }

  private async makeOnCpu(
    job: VideoJob,
    video: VideoFolder,
    stored: Dims,
    missing: Map<number, Map<string, Dims>>,
    onDecoderExit: () => void,
    temps: StagedFrame[],
    started: bigint,
  ): Promise<{ failure: string | null; interrupted?: boolean; seconds: number; frames: number }> {
    try {
      const r = await decodeSelectedFrames({
        videoPath: job.videoPath,
        width: stored.width,
        height: stored.height,
        expectedFrames: job.meta.n_frames,
        indices: [...missing.keys()],
        ffmpegPath: this.settings.ffmpegPath,
        ffprobePath: this.settings.ffprobePath,
        threads: this.settings.ffmpegThreads,
        transport: this.settings.rawTransport,
        budget: this.budget,
        signal: this.abort.signal,
        stop: this.stopping.signal,
        onDecoderExit,
        onFrame: async (index, rgb) => {
          await Promise.all(
            [...missing.get(index)!].map(async ([final, dims]) => {
              const jpeg = await encodeJpeg(rgb, stored, dims);
              const temp = await video.writeTemp(jpeg);
              temps.push({ from: video.dir, temp, final, bytes: jpeg.length, sha256: sha256Hex(jpeg) });
            }),
          );
        },
      });
      await video.commit(temps);
      return { failure: null, seconds: Number(process.hrtime.bigint() - started) / 1e9, frames: r.decodedFrames };
    } catch (err) {
      await video.discard(temps);
      if (err instanceof DecodeError || err instanceof DecodeInterrupted) {
        return { failure: err.message, interrupted: err instanceof DecodeInterrupted, seconds: Number(process.hrtime.bigint() - started) / 1e9, frames: 0 };
      }
      throw err;
    }
  }

  /**
   * The same contract on the GPU path: the helper writes every missing JPEG into a fresh private staging folder of
   * ours (0700, an unpredictable name, inside the video's folder); each is checked (a plain file of ours, one name)
   * and moved into the store through the folders' handles only when all were made.
   */
  private async makeOnGpu(
    gpu: GpuFrameMaker,
    lease: GpuHelperLease,
    job: VideoJob,
    video: VideoFolder,
    stored: Dims,
    missing: Map<number, Map<string, Dims>>,
    onDecoderExit: () => void,
    started: bigint,
  ): Promise<{ failure: string | null; seconds: number; frames: number }> {
    const stage = await video.stage();
    try {
      const planned: Array<{ temp: string; final: string }> = [];
      const frames = [...missing].map(([index, sizes]) => ({
        index,
        outputs: [...sizes].map(([final, dims]) => {
          const temp = `${planned.length}.jpg`;
          planned.push({ temp, final });
          return { width: dims.width, height: dims.height, path: stage.pathOf(temp) };
        }),
      }));
      const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
      const r = await gpu
        .makeWith(lease, { video: job.videoPath, width: stored.width, height: stored.height, frames, storedFrames: job.meta.n_frames })
        .finally(onDecoderExit);
      if (!r.ok || r.jpegs !== planned.length) {
        return { failure: r.ok ? `GPU frames: ${r.jpegs} of ${planned.length} JPEGs made` : `GPU frames: ${r.error}`, seconds: seconds(), frames: 0 };
      }
      const temps: StagedFrame[] = [];
      for (const p of planned) {
        // Read and hashed once, here: its identity goes with it, so its first send is an fstat (store.ts, commit).
        const got = await stage.readOwnWithIdentity(p.temp);
        if (!got || !('bytes' in got))
          return { failure: `GPU frames: ${stage.pathOf(p.temp)} ${got ? got.refused : 'was not made'}`, seconds: seconds(), frames: 0 };
        temps.push({ from: stage, temp: p.temp, final: p.final, bytes: got.bytes.length, sha256: sha256Hex(got.bytes), identity: got.identity });
      }
      await video.commit(temps);
      // The helper decodes up to the last frame asked (ffmpeg's select); meta.n_frames is not re-counted there.
      return { failure: null, seconds: seconds(), frames: r.frames };
    } finally {
      await video.unstage(stage);
    }
  }

  private result(
    job: VideoJob,
    store: FrameStore,
    requestPaths: string[][],
    failure: { kind: FrameFailureKind; message: string } | null,
    seconds: number,
    decodedFrames: number,
    written: number,
    reused: number,
  ): PreparedVideo {
    const totalFrames = job.requests.reduce((a, r) => a + r.indices.length, 0);
    const share = (r: FrameRequest) => (totalFrames > 0 ? (seconds * r.indices.length) / totalFrames : 0);
    const released = new Set<string>();
    const release = (key: string, k: number) => {
      if (released.has(key)) return;
      released.add(key);
      store.unpin(requestPaths[k]);
    };
    const requests: PreparedRequest[] = job.requests.map((r, k) =>
      failure
        ? { ok: false, key: r.key, kind: failure.kind, message: failure.message, decodeSeconds: share(r) }
        : { ok: true, key: r.key, paths: requestPaths[k], decodeSeconds: share(r) },
    );
    // A failed video holds nothing worth keeping pinned.
    if (failure) job.requests.forEach((r, k) => release(r.key, k));
    const byKey = new Map(requests.map((r) => [r.key, r]));
    const indexOf = new Map(job.requests.map((r, k) => [r.key, k]));
    return {
      hash: job.hash,
      requests,
      decodeSeconds: seconds,
      decodedFrames,
      jpegsWritten: written,
      jpegsReused: reused,
      get(key) {
        const r = byKey.get(key);
        if (!r) throw new RangeError(`video ${job.hash} has no request '${key}'`);
        return r;
      },
      release(key?: string) {
        if (key === undefined) job.requests.forEach((r, k) => release(r.key, k));
        else {
          const k = indexOf.get(key);
          if (k === undefined) throw new RangeError(`video ${job.hash} has no request '${key}'`);
          release(key, k);
        }
      },
    };
  }

  /**
   * Prepares jobs ahead of their consumer: up to prefetchDepth videos in preparation or ready and not
   * yet taken; yields each PreparedVideo as soon as it is ready (completion order, not job order).
   * The consumer releases each video when its requests are done.
   */
  async *prepareAhead(jobs: Iterable<VideoJob> | AsyncIterable<VideoJob>, depth = this.settings.prefetchDepth): AsyncGenerator<PreparedVideo> {
    const inflight = new Map<number, Promise<{ id: number; video: PreparedVideo }>>();
    const iterator = (Symbol.asyncIterator in jobs ? jobs[Symbol.asyncIterator]() : (jobs as Iterable<VideoJob>)[Symbol.iterator]()) as
      AsyncIterator<VideoJob> | Iterator<VideoJob>;
    let nextId = 0;
    let exhausted = false;
    try {
      for (;;) {
        while (!exhausted && inflight.size < depth) {
          const step = await iterator.next();
          if (step.done) {
            exhausted = true;
            break;
          }
          const id = nextId++;
          inflight.set(
            id,
            this.prepare(step.value).then((video) => ({ id, video })),
          );
        }
        if (inflight.size === 0) return;
        const { id, video } = await Promise.race(inflight.values());
        inflight.delete(id);
        yield video;
      }
    } finally {
      // Stopped early or failed: what was prepared but never handed out is released.
      const left = await Promise.allSettled(inflight.values());
      for (const s of left) if (s.status === 'fulfilled') s.value.video.release();
    }
  }

  /** Counters since creation (for the status view, the bench and the tests). */
  async stats(): Promise<PipelineStats> {
    const store = await this.store();
    const byPath = { cpu: { ...this.byPath.cpu }, gpu: { ...this.byPath.gpu } };
    return { ...this.counters, byPath, peakBufferedBytes: this.budget.peakBytes, store: store.stats() };
  }

  /**
   * The run is stopping (issue 43: a drain, a scheduler's cancel): running decodes are ended and no decode starts
   * from now on; their prepare() calls resolve with the requests `interrupted` (to do again, no failure). A drain
   * sends no new request, so it does not wait for frames it would never send (a long video's decode can take minutes).
   * GPU makes under way finish (the helper is ours and quick); no new one starts. Returns the decodes under way.
   */
  stopDecodes(): number {
    const running = this.stopping.signal.aborted ? 0 : this.pool.running;
    this.stopping.abort();
    return running;
  }

  /** Kills running decodes (their prepare() calls reject) and refuses new jobs. */
  close(): void {
    this.abort.abort(new Error('frame pipeline closed'));
    this.gpu?.close();
    // The store's folder handle (a store that failed to open has none).
    void this.storePromise?.then(
      (store) => store.close(),
      () => undefined,
    );
  }
}

/** The JPEG bytes of a request, in order, read as they are (tests and benches; the runner reads through FrameStore.readFrames). */
export async function readJpegs(paths: readonly string[]): Promise<Buffer[]> {
  return Promise.all(paths.map((p) => fs.readFile(p)));
}

/**
 * `file://` URLs of a request's JPEGs, for a server started with --allowed-local-media-path. The paths
 * must be under the store's real path (realStore.ts), as the flag is: vLLM resolves the file, not the flag.
 */
export function jpegFileUrls(paths: readonly string[]): string[] {
  return paths.map((p) => pathToFileURL(p).href);
}

/** `data:image/jpeg;base64,…` for one JPEG's bytes. */
export function jpegDataUrl(jpeg: Buffer): string {
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}
