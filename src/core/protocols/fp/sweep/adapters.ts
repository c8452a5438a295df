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
import { gpuHelperCount, gpuHelperJobs, helperGpus } from '../frames/gpu/helperGpus';
import { chooseFramesOn, type FramesMeasure, type FramesPlacement } from '../frames/gpu/framesOn';
import { ffmpegHasCuda, probeGpuFrames, type GpuFramesProbe } from '../frames/gpu/probe';
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
  readonly cpuConcurrency: number;

  /** Where the frames are made: the CPU path until the GPU choice has settled (settleWith). */
  placement: FramesPlacement;
  /** The final placement, once the probe and the choice are done (at once on the CPU path). */
  settled: Promise<FramesPlacement>;

  /**
   * `gpuSlots`: the helpers the GPU path will have (their videos come on top of the CPU pool's, issue 45: a helper that
   * warms takes a video while every CPU slot is busy); 0 on the CPU path.
   */
  constructor(
    layout: PackageLayout,
    opts: { poolSize?: number; gpuSlots?: number; fileUrls: boolean; gpu?: GpuFrameMaker | null; placement?: FramesPlacement },
  ) {
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
    this.cpuConcurrency = this.pipeline.settings.poolSize;
    this.concurrency = this.cpuConcurrency + (opts.gpuSlots ?? 0);
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
            if (!fileUrls) return (await store.readFrames(paths)).map((f) => ({ jpeg: f.bytes, uuid: uuidOfSha256(f.sha256) }));
            const digests = await store.frameDigests(paths);
            return jpegFileUrls(paths).map((fileUrl, k) => ({ fileUrl, uuid: uuidOfSha256(digests[k]) }));
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

  stopDecodes(): number {
    return this.pipeline.stopDecodes();
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
 * CPU decodes at once: on the CPU path --decode-workers, else defaultPoolSize (min(cores − 1, max(4, ⌈cores / 4⌉)), as
 * `run --help` says); on the GPU path the same cap over the helpers' count (issue 45: a video goes to the CPU only
 * while the helpers warm, and 16 helpers on 4 GPUs must not mean 16 CPU decodes at once). Issue 45: the CPU path had
 * cores − 1 here (15 on 16 cores: 6.6 s a video against 2.7 s at 4 on the H100 host).
 */
export function framesPoolSize(decodeWorkers: number | undefined, gpuHelpers: number, cores = os.availableParallelism()): number {
  return gpuHelpers ? Math.min(gpuHelpers, defaultPoolSize(cores)) : decodeWorkers || defaultPoolSize(cores);
}

/** file:// wherever the servers can read the store: our own servers, and --endpoints said to (--endpoint-frames file). */
export function framesAsFileUrls(opts: Pick<RunOptions, 'endpoints' | 'endpointFrames'>): boolean {
  return !opts.endpoints?.length || opts.endpointFrames === 'file';
}

/**
 * The frame source --frames-on asks for (frames/gpu/framesOn.ts): the GPU path only where the host has it (ffmpeg's
 * cuda hwaccel, and a helper that warmed: CUDA torch and pillow in PYTHON), else the CPU path; the choice and why go
 * to `log`. `auto` goes by what the last pilot on this package measured (.fpsweep/host_cpu.jsonl and
 * frames_paths.jsonl).
 *
 * Issue 45: nothing here waits for the GPU. The source comes back at once; where the choice would be the GPU, the
 * helpers start at once (while the servers start) and join the pipeline as soon as ffmpeg says it has cuda, and each
 * video goes to a helper as soon as one is warm and idle, to the CPU meanwhile (pipeline.ts). The helpers' own ready
 * line is the probe (torch, the GPU, pillow: no separate `--probe` Python, which cost ~12 CPU-s a run); `settled`
 * resolves with the final placement once a helper has warmed (or none could). Its videos: one a helper, plus the
 * CPU pool while they warm. A run whose plan sends no frames (`need.videosWithFrames` 0) starts no helper.
 */
export async function framesFor(
  opts: RunOptions,
  layout: PackageLayout,
  log: (line: string) => void = () => undefined,
  need: FramesNeed | null = null,
): Promise<PipelineFrames> {
  const cpuOnly = (helpers = 0) => new PipelineFrames(layout, { poolSize: framesPoolSize(opts.decodeWorkers, helpers), fileUrls: framesAsFileUrls(opts) });
  if (opts.framesOn === 'cpu') return cpuOnly();
  const gpus = await helperGpus(process.env, opts.ngpu);
  const gpuHelpers = gpuHelperCount(gpus, opts.decodeWorkers);
  if (need && need.videosWithFrames === 0) {
    log('frames: none to make in this run, no GPU frame helper started');
    return cpuOnly(gpuHelpers);
  }
  const pilot = opts.framesOn === 'auto' ? await pilotFramesMeasure(layout) : null;
  // What the choice would be on a host with the GPU path: the helpers start now, before the host has said it has it.
  const hoped = chooseFramesOn(opts.framesOn, ASSUMED_FOUND, pilot, opts.pilot);
  if (hoped.use !== 'gpu') {
    const frames = cpuOnly(gpuHelpers);
    frames.settleWith(probedChoice(opts, pilot, log));
    return frames;
  }
  const poolSize = framesPoolSize(opts.decodeWorkers, gpuHelpers);
  const frames = new PipelineFrames(layout, { poolSize, gpuSlots: gpuHelpers, fileUrls: framesAsFileUrls(opts) });
  const maker = new GpuFrameMaker(gpuFrameTools(), gpuHelpers, gpus, gpuHelperJobs(process.env));
  maker.share = hoped.measure ? 'alternate' : 'all';
  maker.warm();
  frames.settleWith(helperChoice(opts, pilot, maker, frames, gpus, log));
  return frames;
}

/** The choice where no helper starts (auto would keep the CPU even with the GPU path): the probe, for its reasons. */
async function probedChoice(
  opts: RunOptions,
  pilot: FramesMeasure | null,
  log: (line: string) => void,
): Promise<{ placement: FramesPlacement; maker: GpuFrameMaker | null }> {
  const found = await probeGpuFrames(gpuFrameTools());
  const choice = chooseFramesOn(opts.framesOn, found, pilot, opts.pilot);
  log(choice.reason);
  return { placement: { use: choice.use, probe: found, reason: choice.reason }, maker: null };
}

/**
 * The choice where the helpers started: ffmpeg's -hwaccels first (a helper's job would fail without NVDEC), then the
 * maker joins the pipeline at once; the first helper's ready line (or every helper failing to warm) is the probe.
 */
async function helperChoice(
  opts: RunOptions,
  pilot: FramesMeasure | null,
  maker: GpuFrameMaker,
  frames: PipelineFrames,
  gpus: readonly string[],
  log: (line: string) => void,
): Promise<{ placement: FramesPlacement; maker: GpuFrameMaker | null }> {
  const tools = gpuFrameTools();
  const found: GpuFramesProbe = { ...ASSUMED_FOUND, ffmpegCuda: false, reasons: [] };
  const hw = await ffmpegHasCuda(tools.ffmpegPath, tools.env ?? process.env);
  if (hw !== true) found.reasons.push(hw);
  else {
    found.ffmpegCuda = true;
    frames.pipeline.attachGpu(maker);
    const ready = await maker.firstReady;
    if (ready) Object.assign(found, { torch: ready.torch, gpu: ready.gpu, pillow: ready.pillow, nvjpeg: ready.jpeg === 'nvjpeg420' });
    else found.reasons.push(`no GPU frames helper warmed (${maker.lastWarmError ?? 'closed before one was warm'})`);
  }
  found.ok = found.reasons.length === 0;
  const choice = chooseFramesOn(opts.framesOn, found, pilot, opts.pilot);
  log(choice.reason);
  const placement: FramesPlacement = { use: choice.use, probe: found, reason: choice.reason };
  if (choice.use !== 'gpu') {
    maker.close();
    return { placement, maker: null };
  }
  log(
    `GPU frames: ${maker.helpers} at once in ${maker.processes} helper process(es) over GPU(s) ${gpus.join(', ') || "(the environment's)"}; ` +
      'videos go on the CPU only while none is warm and idle',
  );
  return { placement, maker };
}

/** What the choice would be on a host with the GPU path (the helpers start before the host has said it has it). */
const ASSUMED_FOUND: GpuFramesProbe = { ok: true, ffmpegCuda: true, torch: null, torchvision: null, gpu: null, nvjpeg: false, pillow: null, reasons: [] };

export const defaultSweepDeps: SweepDeps = {
  servers: (opts, layout, log) => startServers(opts, layout, log),
  frames: async (opts, layout, need) => framesFor(opts, layout, (l) => process.stderr.write(`fpsweep: ${l}\n`), need ?? null),
};
