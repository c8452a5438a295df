// The real servers and frames behind the sweep: the serving layer's launcher (or --endpoints) and the
// frame pipeline. Tests and the bench can pass their own SweepDeps instead.
import * as os from 'node:os';
import type { PackageLayout } from '../package/layout';
import { FramePipeline, defaultPoolSize, jpegFileUrls, type FrameRequest } from '../frames';
import type { FramesByPath } from '../frames/pipeline';
import { realFrameStoreDir } from '../frames/realStore';
import { fpLaunchOptions } from '../serving/fpServing';
import { useEndpoints, type Fleet, type ServerStateEvent } from '../../../serving/launcher';
import { launchServers } from '../serving/launchServers';
import { uuidOfSha256, type FrameRef } from '../../../serving/chatRequest';
import { GpuFrameMaker } from '../frames/gpu/gpuMaker';
import { gpuHelperCount, helperGpus } from '../frames/gpu/helperGpus';
import { chooseFramesOn, type FramesPlacement } from '../frames/gpu/framesOn';
import { probeGpuFrames, type GpuFramesProbe } from '../frames/gpu/probe';
import { gpuFrameTools, pilotFramesMeasure } from './fpHostCpu';
import type { Endpoint } from '../../../serving/client';
import { VllmClient } from '../../../serving/client';
import type { FrameSource, FrameRequestSpec, FramesNeed, PreparedRequestFrames, PreparedVideoFrames } from './frameSource';
import type { RunnerLog } from '../../../runner/logs';
import type { RunOptions } from './runOptions';
import type { ServerState } from '../../../serving/serverState';
import { checkServer } from './checkServer';
import { checkGpus } from '../../../doctor/gpus';
import { fpKvTokens } from './kvBudget';
import type { ServerEvent, ServerSet } from '../../../runner/servers';
import type { SweepDeps } from './sweep';

/** A Fleet (launched or given servers) as the runner sees it. */
export class FleetServers implements ServerSet {
  readonly endpoints: Endpoint[];
  servedModel: string;
  private readonly listeners: ((e: ServerEvent) => void)[] = [];

  constructor(
    readonly fleet: Fleet,
    servedModel: string,
    readonly launched: boolean,
    /** KV-cache tokens of each server's GPU (launched servers on GPUs nvidia-smi lists); null when unknown. */
    private readonly kv: readonly (number | null)[] = [],
  ) {
    this.endpoints = fleet.handles.map((h) => ({ url: h.url, apiKey: h.apiKey }));
    this.servedModel = servedModel;
    fleet.on('state', (e: ServerStateEvent) => {
      const index = fleet.handles.findIndex((h) => h.id === e.id);
      if (index < 0) return;
      for (const l of this.listeners) l({ index, state: e.state, final: e.final, message: e.message });
    });
  }

  initialState(index: number): ServerState {
    return this.fleet.handles[index].state;
  }

  upSignal(index: number): AbortSignal {
    return this.fleet.handles[index].upSignal;
  }

  onEvent(listener: (e: ServerEvent) => void): void {
    this.listeners.push(listener);
  }

  kvTokens(index: number): number | null {
    return this.kv[index] ?? null;
  }

  restarts(index: number): number {
    return this.fleet.handles[index]?.restarts ?? 0;
  }

  /** The processes of the servers we launched (none for --endpoints): their trees are vLLM's in the host CPU's split. */
  serverPids(): number[] {
    return this.fleet.handles.flatMap((h) => (h.pid === null ? [] : [h.pid]));
  }

  async close(): Promise<void> {
    await this.fleet.stop();
  }
}

export async function startServers(opts: RunOptions, layout: PackageLayout, log: RunnerLog): Promise<FleetServers> {
  const sink = (line: string) => void log.info(line);
  const fleet = opts.endpoints?.length
    ? await useEndpoints(opts.endpoints, { log: sink })
    : await launchServers({
        layout,
        ...fpLaunchOptions(layout),
        ngpu: opts.ngpu,
        maxSeqs: opts.maxSeqs,
        gpuUtil: opts.gpuUtil,
        // vLLM's front end sized from this host (frontEndSizing.ts): processor cache, media and torch threads.
        host: { ramBytes: os.totalmem(), cores: os.availableParallelism(), decodePool: opts.decodeWorkers ?? defaultPoolSize() },
        vllmBin: opts.vllmBin,
        basePort: opts.basePort,
        log: sink,
      });
  try {
    // Which model, and whether each server holds the protocol's context (ContextLengthError if not).
    const models = new Set<string>();
    for (const h of fleet.handles) {
      if (h.state !== 'up') continue;
      const c = new VllmClient({ url: h.url, apiKey: h.apiKey }, { maxRetries: 0, connections: 1 });
      try {
        models.add((await checkServer(c)).model);
      } finally {
        await c.close();
      }
    }
    if (models.size > 1) throw new Error(`the servers serve different models: ${[...models].join(', ')}`);
    // Each launched server's KV cache from its GPU's memory (fpKvTokens: ../doctor/context.ts's arithmetic).
    let kv: (number | null)[] = [];
    if (!opts.endpoints?.length) {
      const { gpus } = await checkGpus(process.env);
      kv = fleet.handles.map((h) => (h.gpu !== null && gpus[h.gpu] ? fpKvTokens(gpus[h.gpu].memoryMiB, opts.gpuUtil) : null));
    }
    return new FleetServers(fleet, [...models][0], !opts.endpoints?.length, kv);
  } catch (err) {
    await fleet.stop();
    throw err;
  }
}

/**
 * The frame pipeline as a FrameSource. Launched servers read the JPEGs from the store directly
 * (file:// under --allowed-local-media-path); servers given with --endpoints may be on other hosts,
 * so they get the same bytes as data: URLs.
 */
export class PipelineFrames implements FrameSource {
  readonly pipeline: FramePipeline;
  readonly concurrency: number;

  /** Where the frames are made: the CPU path until the GPU choice has settled (settleWith). */
  placement: FramesPlacement;
  /** The final placement, once the probe and the choice are done (at once on the CPU path). */
  settled: Promise<FramesPlacement>;

  constructor(layout: PackageLayout, opts: { poolSize?: number; fileUrls: boolean; gpu?: GpuFrameMaker | null; placement?: FramesPlacement }) {
    this.placement = opts.placement ?? { use: opts.gpu ? 'gpu' : 'cpu', probe: null };
    this.settled = Promise.resolve(this.placement);
    // The store by its real path, so every file:// URL names the path vLLM resolves it to (realStore.ts).
    this.pipeline = new FramePipeline(
      {
        storeDir: realFrameStoreDir(layout.root, layout.frameStoreDir),
        root: layout.root,
        poolSize: opts.poolSize ?? defaultPoolSize(),
      },
      opts.gpu ?? null,
    );
    this.concurrency = this.pipeline.settings.poolSize;
    this.fileUrls = opts.fileUrls;
    this.layout = layout;
  }
  /** Frames go as file:// URLs (else data: URLs). */
  readonly fileUrls: boolean;
  private readonly layout: PackageLayout;

  async prepare(hash: string, meta: Parameters<FrameSource['prepare']>[1], requests: FrameRequestSpec[]): Promise<PreparedVideoFrames> {
    // v_blind sends no frame: it needs no job (and a video's blind requests never wait on its decode).
    const withFrames: FrameRequest[] = [];
    for (const r of requests) {
      if (r.plan.indices.length > 0) withFrames.push({ key: r.key, indices: r.plan.indices, width: r.plan.width!, height: r.plan.height! });
    }
    const video = withFrames.length ? await this.pipeline.prepare({ hash, videoPath: this.layout.videoFile(hash), meta, requests: withFrames }) : null;
    const fileUrls = this.fileUrls;
    const store = await this.pipeline.store();
    const withKeys = new Set(withFrames.map((r) => r.key));
    return {
      decodeS: video?.decodeSeconds ?? 0,
      get(key: string): PreparedRequestFrames {
        if (!video || !withKeys.has(key)) return { ok: true, decodeS: 0, nFrames: 0, images: async () => [] };
        const r = video.get(key);
        if (!r.ok) return { ok: false, kind: r.kind, message: r.message, decodeS: r.decodeSeconds };
        const paths = r.paths;
        return {
          ok: true,
          decodeS: r.decodeSeconds,
          nFrames: paths.length,
          // Each part carries its bytes' digest as vLLM's uuid (chatRequest.ts says why that is safe in 0.11).
          // The bytes are read through the store (a plain file of ours, as recorded when we wrote it, or refused with
          // its path): nothing is sent that we did not make from the video (issue 42).
          images: async (): Promise<FrameRef[]> => {
            const frames = await store.readFrames(paths);
            if (!fileUrls) return frames.map((f) => ({ jpeg: f.bytes, uuid: uuidOfSha256(f.sha256) }));
            return jpegFileUrls(paths).map((fileUrl, k) => ({ fileUrl, uuid: uuidOfSha256(frames[k].sha256) }));
          },
        };
      },
      release: (key?: string) => {
        if (!video) return;
        if (key === undefined) video.release();
        else if (withKeys.has(key)) video.release(key);
      },
    };
  }

  /** Videos made on each path so far and their seconds (the run's frames_paths line). */
  async framesByPath(): Promise<FramesByPath> {
    return (await this.pipeline.stats()).byPath;
  }

  /** The GPU choice, made behind the source's back: its maker joins the pipeline when it comes. */
  settleWith(choice: Promise<{ placement: FramesPlacement; maker: GpuFrameMaker | null }>): void {
    this.settled = choice.then(
      ({ placement, maker }) => {
        this.placement = placement;
        if (maker) this.pipeline.attachGpu(maker);
        return placement;
      },
      () => this.placement, // a probe that throws leaves the CPU path (probeGpuFrames itself never throws)
    );
  }

  async close(): Promise<void> {
    this.pipeline.close();
    // A choice still pending attaches its maker to the closed pipeline, which closes it at once.
    await this.settled;
  }
}

/**
 * Videos made at once: on the GPU path one a helper (a video made on the CPU takes the same slot); on the CPU path
 * --decode-workers, else defaultPoolSize (min(cores − 1, max(4, ⌈cores / 4⌉)), as `run --help` says). Issue 45: the
 * CPU path had cores − 1 here (15 on 16 cores: 6.6 s a video against 2.7 s at 4 on the H100 host).
 */
export function framesPoolSize(decodeWorkers: number | undefined, gpuHelpers: number, cores = os.availableParallelism()): number {
  return gpuHelpers || decodeWorkers || defaultPoolSize(cores);
}

/** file:// wherever the servers can read the store: our own servers, and --endpoints said to (--endpoint-frames file). */
export function framesAsFileUrls(opts: Pick<RunOptions, 'endpoints' | 'endpointFrames'>): boolean {
  return !opts.endpoints?.length || opts.endpointFrames === 'file';
}

/**
 * The frame source --frames-on asks for (frames/gpu/framesOn.ts): the GPU path only where the host has it (probed:
 * ffmpeg's cuda hwaccel, PYTHON's CUDA torch and pillow), else the CPU path; the choice and why go to `log`.
 * `auto` goes by what the last pilot on this package measured (.fpsweep/host_cpu.jsonl and frames_paths.jsonl).
 *
 * Issue 45: nothing here waits for the GPU. The source comes back at once on the CPU path; the probe, the choice and
 * the helpers' start and warm-up run behind it (while the servers start), and each video goes to the GPU only once a
 * warm helper is idle at its turn (pipeline.ts). `settled` resolves with the final placement. A run whose plan sends
 * no frames (`need.videosWithFrames` 0) starts no helper.
 */
export async function framesFor(
  opts: RunOptions,
  layout: PackageLayout,
  log: (line: string) => void = () => undefined,
  need: FramesNeed | null = null,
): Promise<PipelineFrames> {
  const gpuHelpers = opts.framesOn === 'cpu' ? 0 : gpuHelperCount(await helperGpus(process.env, opts.ngpu), opts.decodeWorkers);
  const frames = new PipelineFrames(layout, { poolSize: framesPoolSize(opts.decodeWorkers, gpuHelpers), fileUrls: framesAsFileUrls(opts) });
  if (opts.framesOn === 'cpu') return frames;
  if (need && need.videosWithFrames === 0) {
    log('frames: none to make in this run, no GPU frame helper started');
    return frames;
  }
  frames.settleWith(chooseGpu(opts, layout, gpuHelpers, log));
  return frames;
}

async function chooseGpu(
  opts: RunOptions,
  layout: PackageLayout,
  helpers: number,
  log: (line: string) => void,
): Promise<{ placement: FramesPlacement; maker: GpuFrameMaker | null }> {
  const tools = gpuFrameTools();
  const pilot = opts.framesOn === 'auto' ? await pilotFramesMeasure(layout) : null;
  // The helpers start with the probe, not after it, where the choice would be the GPU if the probe finds the path
  // (the probe imports torch and starts CUDA too: seconds); a probe that finds none closes them again.
  const hoped = chooseFramesOn(opts.framesOn, ASSUMED_FOUND, pilot, opts.pilot);
  const gpus = hoped.use === 'gpu' ? await helperGpus(process.env, opts.ngpu) : [];
  let maker: GpuFrameMaker | null = null;
  if (hoped.use === 'gpu') {
    maker = new GpuFrameMaker(tools, helpers, gpus);
    maker.warm();
  }
  const found = await probeGpuFrames(tools);
  const choice = chooseFramesOn(opts.framesOn, found, pilot, opts.pilot);
  log(choice.reason);
  const placement: FramesPlacement = { use: choice.use, probe: found, reason: choice.reason };
  if (choice.use !== 'gpu' || !maker) {
    maker?.close();
    return { placement, maker: null };
  }
  maker.share = choice.measure ? 'alternate' : 'all';
  log(`GPU frames: ${maker.helpers} helpers over GPU(s) ${gpus.join(', ') || "(the environment's)"} warming; videos go on the CPU until one is warm`);
  return { placement, maker };
}

/** What the choice would be on a host with the GPU path (the helpers start before the probe has answered). */
const ASSUMED_FOUND: GpuFramesProbe = { ok: true, ffmpegCuda: true, torch: null, torchvision: null, gpu: null, nvjpeg: false, pillow: null, reasons: [] };

export const defaultSweepDeps: SweepDeps = {
  servers: (opts, layout, log) => startServers(opts, layout, log),
  frames: async (opts, layout, need) => framesFor(opts, layout, (l) => process.stderr.write(`fpsweep: ${l}\n`), need ?? null),
};
