// The host bench (issue 17, point 2): the full-size plan (84 benchmarks × 300 items × 13 conditions, the
// metadata-only package of bench/planPackage.ts) played through the stand-in's vLLM 0.11 cost model
// (src/standins/vllm/cost/) on simulated time — a discrete-event simulation, no sleeps, no servers.
//   npx tsx bench/hostSim/main.ts [--keep DIR] [--gpu b200|h200] [--ram-gib 512] [--cores 16] [--sample K]
//                                 [--ablation-sample K (default 4)] [--no-ablations]
//                                 [--gpu-frames FILE (default bench/hostSim/measured/gpu-frames-sweep-h100-main-9dbb0eb.json)] [--also-cores 32]
//                                 [--gpu-frames-also FILE=LABEL,…]
// Host: 4 GPUs, one server each, `--cores` cores. Prints, for (a) a seed-like runner, (b) today's
// engine (the scheduler as runSweep drove it before issue 17: WORKERS 6, vLLM's default caches) and (c) the tuned
// engine (what runSweep does now): makespan, GPU busy %, front-end (API thread) busy %, our frames' CPU (hours of
// CPU and % of the cores), images sent per image processed, prefix-cache hits; the GPU-bound lower bound and the
// front end's floor; the ratios; then what each change of (c) is worth (ablation lines, on every K-th video).
// The cores: our frames run on them (in (c) less the cores its API processes' extra torch threads take, OMP_NUM_THREADS
// from frontEndSizing.processorThreads); the rest of the host's CPU (API threads, media loading, engine cores) is
// not simulated as contention but summed after the run: `host CPU%` = all of it / (cores × makespan), and the host
// CPU floor = all of (c)'s CPU / cores. Above 100 % the makespan is optimistic and the host's cores bind.
// The honest makespan (issue 34; src/core/runner/hostCpu.ts, the rule the pilot's bottleneck line uses too): no
// makespan below its host CPU floor (all its CPU / cores), and GPU frames' GPU time (measured interference) added
// to the GPU side: honest = max(simulated + GPU frames' GPU s / GPUs, CPU floor). Rows "(c) GPU frames" play (c)
// with the GPU frame path's measured costs (--gpu-frames; bench/gpuSweep's derive.py makes the file from whole sweeps
// on the device: the default is issue 45's last, the shipped helper (its own NVDEC) on an H100);
// --also-cores N plays (c) with CPU and GPU frames on N cores too.
// --sample K plays every K-th video only. Columns: makespan in simulated hours; ×LB = makespan / GPU lower bound;
// honest, ×LB honest: the same for the honest makespan.
// About 20 s of CPU to plan, 15–20 s a client on the full plan, ~5 s an ablation line (bundled by esbuild first).
import * as os from 'node:os';
import { SimClock } from './clock';
import { buildSimPlan, type SimPlan } from './workload';
import { ImageBook, SimServer, type ServerConfig } from './server';
import { engineRunner, seedRunner, type EngineOptions } from './clients';
import { frontEndFloorS, gpuLowerBoundS } from './lowerBound';
import { B200_VLLM_SCALE } from '../../src/standins/vllm/cost/calibration';
import { processorCoresHeld } from '../../src/standins/vllm/cost/processorThreads';
import { DEFAULT_MAX_NUM_BATCHED_TOKENS } from '../../src/standins/vllm/cost/gpuEngine';
import {
  DEFAULT_MEDIA_LOADING_THREADS,
  DEFAULT_MM_PROCESSOR_CACHE_GB,
  mediaLoadingThreads,
  processorCacheGb,
  processorThreads,
} from '../../src/core/serving/frontEndSizing';
import { OPEN_VIDEOS_PER_SERVER, fpInflightTokenBudget, fpKvTokens } from '../../src/core/protocols/fp/sweep/kvBudget';
import { bundleSelf } from '../bundleSelf';
import { honestMakespan } from '../../src/core/runner/hostCpu';
import { gpuFrameCosts, gpuFramesPool, readMeasuredGpuFrames, type MeasuredGpuFrames } from './gpuFrameCosts';
import * as path from 'node:path';
import { existsSync } from 'node:fs';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
};
const GPUS = 4;
const GPU = arg('gpu', 'b200');
const GPU_MIB = GPU === 'h200' ? 143_771 : 183_359;
const GPU_SCALE = GPU === 'h200' ? 1 : B200_VLLM_SCALE;
const RAM = Number(arg('ram-gib', '512')) * 1024 ** 3;
const CORES = Number(arg('cores', '16'));
const SAMPLE = Number(arg('sample', '1'));
const ABLATION_SAMPLE = Number(arg('ablation-sample', '4'));
const NO_ABLATIONS = process.argv.includes('--no-ablations');
const ALSO_CORES = process.argv.includes('--also-cores') ? Number(arg('also-cores', '32')) : null;
const GPU_FRAMES_FILE = arg(
  'gpu-frames',
  path.join(__dirname.endsWith('hostSim') ? __dirname : path.join(process.cwd(), 'bench', 'hostSim'), 'measured', 'gpu-frames-sweep-h100-main-9dbb0eb.json'),
);
// More GPU-frames rows on CORES cores, one a measured file: --gpu-frames-also FILE=LABEL[,FILE=LABEL…] (no comma in
// a label). bench/hostSim/measured/2026-12-06-full-plan-run8.txt is `--no-ablations --also-cores 32 --gpu-frames-also
// "bench/hostSim/measured/gpu-frames-mps.json=MPS on,bench/hostSim/measured/gpu-frames-run8-nomps.json=MPS off on the MPS run's machine"`.
// (e.g. bench/hostSim/measured/gpu-frames-mps.json=MPS on). Each row names its file's device in the header.
const GPU_FRAMES_ALSO = (process.argv.includes('--gpu-frames-also') ? arg('gpu-frames-also', '') : '')
  .split(',')
  .filter(Boolean)
  .map((spec) => {
    const [file, label] = spec.split('=');
    return { file, label: label || path.basename(file) };
  });
const MAX_SEQS = 32; // the seed's and the launcher's MAX_SEQS
const GPU_UTIL = 0.85;
const OUTPUT_TOKENS = 2;

interface Outcome {
  name: string;
  /** The cores this outcome was played on. */
  cores: number;
  makespanS: number;
  /** GPU seconds our frames took from the model (GPU frames only). */
  framesGpuS: number;
  gpuBusy: number;
  apiBusy: number;
  framesCpuS: number;
  processed: number;
  sent: number;
  prefixHit: number;
  promptTokens: number;
  /** API threads, their extra torch threads while the processor runs, media loading, engine-core loops: CPU s. */
  apiCpuS: number;
  mediaCpuS: number;
  engineCpuS: number;
  /** Everything on the host's cores: our frames and the three above. */
  hostCpuS: number;
}

function serverConfig(over: Partial<ServerConfig>): ServerConfig {
  return {
    processorCacheGb: DEFAULT_MM_PROCESSOR_CACHE_GB,
    mediaThreads: DEFAULT_MEDIA_LOADING_THREADS,
    processorThreads: 1,
    maxNumSeqs: MAX_SEQS,
    maxNumBatchedTokens: DEFAULT_MAX_NUM_BATCHED_TOKENS,
    gpuScale: GPU_SCALE,
    kvTokens: fpKvTokens(GPU_MIB, GPU_UTIL),
    transport: 'file',
    uuid: false,
    ...over,
  };
}

async function play(
  name: string,
  plan: SimPlan,
  cfg: ServerConfig,
  client: { seed: 'seed' | 'pipeline' } | { engine: EngineOptions },
  cores = CORES,
): Promise<Outcome> {
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const clock = new SimClock();
  const book = new ImageBook(cfg);
  const servers = Array.from({ length: GPUS }, () => new SimServer(clock, cfg, book));
  const r =
    'seed' in client
      ? await seedRunner(clock, plan, servers, book, { cores, workersPerServer: 6, frames: client.seed })
      : await engineRunner(clock, plan, servers, book, client.engine);
  const span = clock.now;
  const sum = (f: (s: SimServer) => number) => servers.reduce((a, s) => a + f(s), 0);
  const o: Outcome = {
    name,
    cores,
    makespanS: span,
    framesGpuS: r.gpuS ?? 0,
    gpuBusy: sum((s) => s.gpuBusyS) / (GPUS * span),
    apiBusy: sum((s) => s.apiBusyS) / (GPUS * span),
    framesCpuS: r.cpuS,
    processed: sum((s) => s.imagesProcessed),
    sent: sum((s) => s.imagesSent),
    prefixHit: sum((s) => s.prefixHitTokens),
    promptTokens: sum((s) => s.promptTokens),
    // The host's cores: our frames; each API thread, plus its extra torch threads while the processor runs
    // (processorCoresHeld: OpenMP workers spin through a call); the media-loading pools' decodes; and each engine
    // core's loop, taken as one core while its GPU works (an ESTIMATE: scheduling, launches, the sync's spin).
    apiCpuS: sum((s) => s.apiBusyS + s.processS * (processorCoresHeld(s.cfg.processorThreads) - 1)),
    mediaCpuS: sum((s) => s.mediaBusyS),
    engineCpuS: sum((s) => s.gpuBusyS),
    hostCpuS: 0,
  };
  o.hostCpuS = o.framesCpuS + o.apiCpuS + o.mediaCpuS + o.engineCpuS;
  process.stderr.write(`  ${name}: simulated in ${((performance.now() - t) / 1000).toFixed(1)} s, CPU ${cpuS(cpu0).toFixed(1)} s (${clock.fired} events)\n`);
  return o;
}

const cpuS = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};
const h = (s: number) => `${(s / 3600).toFixed(2)} h`;
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/** The honest makespan (runner/hostCpu.ts): the simulated one plus GPU frames' GPU time, never below the CPU floor. */
function honest(o: Outcome) {
  return honestMakespan(o.makespanS + o.framesGpuS / GPUS, { frames: o.framesCpuS, api: o.apiCpuS, media: o.mediaCpuS, engine: o.engineCpuS }, o.cores);
}

function line(o: Outcome, lb: number): string {
  const hm = honest(o);
  return (
    `${o.name.padEnd(44)} ${h(o.makespanS).padStart(9)} ${pct(o.gpuBusy).padStart(6)} ${pct(o.apiBusy).padStart(6)} ` +
    `${h(o.framesCpuS).padStart(10)} ${pct(o.framesCpuS / (o.cores * o.makespanS)).padStart(6)} ` +
    `${(o.sent / Math.max(1, o.processed)).toFixed(2).padStart(6)} ${pct(o.prefixHit / o.promptTokens).padStart(6)} ` +
    `${(o.makespanS / lb).toFixed(2).padStart(6)} ${pct(o.hostCpuS / (o.cores * o.makespanS)).padStart(6)} ` +
    `${h(hm.honestS).padStart(9)} ${(hm.honestS / lb).toFixed(2).padStart(6)}${hm.cpuBound ? ' cpu' : ''}`
  );
}

async function main(): Promise<void> {
  const keepAt = process.argv.indexOf('--keep');
  const t0 = performance.now();
  const cpuStart = process.cpuUsage();
  const full = await buildSimPlan(keepAt >= 0 ? process.argv[keepAt + 1] : null, (l) => process.stderr.write(l + '\n'));
  const plan: SimPlan = SAMPLE > 1 ? { ...full, videos: full.videos.filter((_, i) => i % SAMPLE === 0) } : full;
  plan.requests = plan.videos.reduce((n, v) => n + v.requests.length, 0);
  process.stderr.write(
    `plan: ${plan.videos.length} videos, ${plan.requests} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s, CPU ${cpuS(cpuStart).toFixed(1)} s\n`,
  );
  const lbOptions = { gpus: GPUS, gpuScale: GPU_SCALE, maxNumBatchedTokens: DEFAULT_MAX_NUM_BATCHED_TOKENS, outputTokens: OUTPUT_TOKENS };
  const lb = gpuLowerBoundS(plan, lbOptions);

  const feFloor1 = frontEndFloorS(plan, new ImageBook({ uuid: false, transport: 'file' }), GPUS);
  const kv = fpKvTokens(GPU_MIB, GPU_UTIL);
  const base: EngineOptions = { cores: CORES, prepConcurrency: 4, capacity: 6 };
  // (c) is what runSweep now does on launched servers (fpServerSlot, OPEN_VIDEOS_PER_SERVER); the warm-up gate is
  // an option it leaves off (its ablation line says why). Since issue 34 its image parts carry a content uuid.
  const tunedFor = (cores: number) => {
    const threads = processorThreads(cores, GPUS, base.prepConcurrency);
    const server: Partial<ServerConfig> = {
      processorCacheGb: processorCacheGb(RAM, GPUS),
      mediaThreads: mediaLoadingThreads(cores, GPUS),
      processorThreads: threads,
      uuid: true,
    };
    // The processors' extra torch threads take their cores from our frames' share (no free cores assumed).
    const engine: EngineOptions = {
      ...base,
      cores: cores - GPUS * (threads - 1),
      capacity: MAX_SEQS,
      tokenBudget: fpInflightTokenBudget(kv),
      maxOpenVideos: OPEN_VIDEOS_PER_SERVER,
    };
    return { threads, server, engine };
  };
  const { threads, server: tunedServer, engine: tunedEngine } = tunedFor(CORES);
  const framesCores = tunedEngine.cores;
  const feFloor = frontEndFloorS(plan, new ImageBook({ uuid: false, transport: 'file' }), GPUS, threads);
  const measured: MeasuredGpuFrames | null = existsSync(GPU_FRAMES_FILE) ? readMeasuredGpuFrames(GPU_FRAMES_FILE) : null;
  const gpuFrames = measured ? gpuFrameCosts(measured) : null;
  const runs: Outcome[] = [];
  runs.push(await play('(a) seed-like runner', plan, serverConfig({ transport: 'data' }), { seed: 'seed' }));
  runs.push(await play("(b) today's engine", plan, serverConfig({}), { engine: base }));
  runs.push(await play('(c) tuned engine', plan, serverConfig(tunedServer), { engine: tunedEngine }));
  // (c) with the frames on the GPU (measured costs), and both on ALSO_CORES cores.
  const more: Outcome[] = [];
  // GPU frames: the measured helpers-a-GPU on each GPU (frames/gpu/helperGpus.ts), one video a helper.
  const gpuEngineFrom = (m: MeasuredGpuFrames, e: EngineOptions): EngineOptions => ({
    ...e,
    frames: gpuFrameCosts(m),
    prepConcurrency: gpuFramesPool(m) * GPUS,
  });
  const gpuEngine = (e: EngineOptions): EngineOptions => (measured ? gpuEngineFrom(measured, e) : e);
  if (gpuFrames) more.push(await play(`(c) GPU frames, ${CORES} cores`, plan, serverConfig(tunedServer), { engine: gpuEngine(tunedEngine) }));
  const also = GPU_FRAMES_ALSO.map((a) => ({ ...a, m: readMeasuredGpuFrames(a.file) }));
  for (const a of also)
    more.push(await play(`(c) GPU frames (${a.label}), ${CORES} cores`, plan, serverConfig(tunedServer), { engine: gpuEngineFrom(a.m, tunedEngine) }));
  if (ALSO_CORES) {
    const t = tunedFor(ALSO_CORES);
    more.push(await play(`(c) CPU frames, ${ALSO_CORES} cores`, plan, serverConfig(t.server), { engine: t.engine }, ALSO_CORES));
    if (gpuFrames) more.push(await play(`(c) GPU frames, ${ALSO_CORES} cores`, plan, serverConfig(t.server), { engine: gpuEngine(t.engine) }, ALSO_CORES));
  }
  const ablations: Outcome[] = [];
  // The ablations play every ABLATION_SAMPLE-th video of the plan (the same subset for each line and its own (c)).
  const abPlan: SimPlan = ABLATION_SAMPLE > 1 ? { ...plan, videos: plan.videos.filter((_, i) => i % ABLATION_SAMPLE === 0) } : plan;
  abPlan.requests = abPlan.videos.reduce((n, v) => n + v.requests.length, 0);
  const abC =
    ABLATION_SAMPLE > 1 && !NO_ABLATIONS ? await play('(c) on the ablation subset', abPlan, serverConfig(tunedServer), { engine: tunedEngine }) : runs[2];
  if (!NO_ABLATIONS) {
    ablations.push(await play("(a) with our frame pipeline's cost", abPlan, serverConfig({ transport: 'data' }), { seed: 'pipeline' }));
    ablations.push(await play('(a) pipeline frames, file://', abPlan, serverConfig({}), { seed: 'pipeline' }));
    ablations.push(await play("(b) today's engine", abPlan, serverConfig({}), { engine: base }));
    ablations.push(
      await play('(b) + processor cache sized from RAM', abPlan, serverConfig({ processorCacheGb: tunedServer.processorCacheGb }), { engine: base }),
    );
    ablations.push(
      await play('(c) without the sized processor cache', abPlan, serverConfig({ mediaThreads: tunedServer.mediaThreads }), { engine: tunedEngine }),
    );
    ablations.push(
      await play('(c) without media threads from cores', abPlan, serverConfig({ processorCacheGb: tunedServer.processorCacheGb }), { engine: tunedEngine }),
    );
    ablations.push(
      await play('(c) without processor threads (OMP 1)', abPlan, serverConfig({ ...tunedServer, processorThreads: 1 }), {
        engine: { ...tunedEngine, cores: CORES },
      }),
    );
    ablations.push(
      await play("(c) + a video's first request first (gate)", abPlan, serverConfig(tunedServer), { engine: { ...tunedEngine, warmVideos: true } }),
    );
    ablations.push(await play('(c) without the open-video bound', abPlan, serverConfig(tunedServer), { engine: { ...tunedEngine, maxOpenVideos: undefined } }));
    ablations.push(
      await play('(c) without the KV in-flight cap (6 a server)', abPlan, serverConfig(tunedServer), {
        engine: { ...tunedEngine, capacity: 6, tokenBudget: undefined },
      }),
    );
    ablations.push(await play('(c) with data: URLs', abPlan, serverConfig({ ...tunedServer, transport: 'data' }), { engine: tunedEngine }));
    ablations.push(await play('(c) without uuid parts (hashed by vLLM)', abPlan, serverConfig({ ...tunedServer, uuid: false }), { engine: tunedEngine }));
  }
  const c = runs[2];
  console.log(
    `host: ${GPUS} × ${GPU === 'h200' ? 'H200 (transformers calibration, scale 1)' : `B200 with vLLM kernels (scale ${GPU_SCALE}, an estimate)`}, ` +
      `${GPUS} servers, ${CORES} cores shared by our frames, the API processes and the engine cores, ${RAM / 1024 ** 3} GiB RAM; ` +
      `plan ${plan.videos.length} videos, ${plan.requests} requests` +
      `${SAMPLE > 1 ? ` (every ${SAMPLE}th video)` : ''}`,
  );
  console.log(
    `tuned: --mm-processor-cache-gb ${tunedServer.processorCacheGb}, VLLM_MEDIA_LOADING_THREAD_COUNT=${tunedServer.mediaThreads}, OMP_NUM_THREADS=${threads} ` +
      `(our frames: ${framesCores} cores), ` +
      `in flight ≤ ${MAX_SEQS} requests and ≤ ${fpInflightTokenBudget(kv)} predicted tokens a server (KV ${kv} tokens), ` +
      `≤ ${tunedEngine.maxOpenVideos} videos open a server, file:// frames, content uuids on image parts`,
  );
  console.log(
    measured
      ? `GPU frames: ${GPU_FRAMES_FILE} (${measured.device}, ${measured.measuredAt}; modelled, not measured: ${measured.modelled.join('; ') || 'none'})`
      : `GPU frames: no measured costs (${GPU_FRAMES_FILE} missing): no GPU-frames rows`,
  );
  for (const a of also) console.log(`GPU frames (${a.label}): ${a.file} (${a.m.device}, ${a.m.measuredAt})`);
  console.log(`${'client'.padEnd(44)}  makespan   GPU%  front%  frames CPU  cores% sends/  prefix  ×LB   host    honest  ×LB`);
  console.log(`${''.padEnd(44)}                                                      proc.   hit         CPU%            honest`);
  for (const o of [...runs, ...more]) console.log(line(o, lb));
  console.log(`${'GPU-bound lower bound'.padEnd(44)} ${h(lb).padStart(9)}`);
  console.log(`${'front-end floor (each distinct image once)'.padEnd(44)} ${h(feFloor1).padStart(9)}   (one API thread a server, file://, no uuid, OMP 1)`);
  console.log(`${'  the same with OMP_NUM_THREADS=' + threads}`.padEnd(44) + ` ${h(feFloor).padStart(9)}`);
  const cpuFloor = c.hostCpuS / CORES;
  console.log(
    `${'host CPU floor of (c) (all its CPU / cores)'.padEnd(44)} ${h(cpuFloor).padStart(9)}   ` +
      `(CPU: frames ${h(c.framesCpuS)}, API threads ${h(c.apiCpuS)}, media loading ${h(c.mediaCpuS)}, engine cores ${h(c.engineCpuS)}, ` +
      `all ${h(c.hostCpuS)}; host CPU% > 100 % = the makespan is optimistic)`,
  );
  console.log(
    `(a)/(c) ${(runs[0].makespanS / c.makespanS).toFixed(2)}   (b)/(c) ${(runs[1].makespanS / c.makespanS).toFixed(2)}   ` +
      `(c)/lower bound ${(c.makespanS / lb).toFixed(3)}   (c)/front-end floor ${(c.makespanS / feFloor).toFixed(3)}`,
  );
  for (const o of [c, ...more]) {
    const hm = honest(o);
    console.log(
      `honest ${o.name === c.name ? `(c) CPU frames, ${CORES} cores` : o.name}: ${h(hm.honestS)} = max(simulated ${h(o.makespanS)}` +
        `${o.framesGpuS ? ` + frames' GPU ${h(o.framesGpuS / GPUS)}` : ''}, CPU floor ${h(hm.floorS)}); ` +
        `(c)/bound ${(hm.honestS / lb).toFixed(3)}${hm.cpuBound ? ' (the cores bind)' : ''}`,
    );
  }
  const bound = Math.max(lb, feFloor, cpuFloor);
  console.log(
    feFloor > lb && feFloor >= cpuFloor
      ? `the model says: front-end-bound. One API thread a server needs ${h(feFloor)} even with every repeat a cache hit, ` +
          `${(feFloor / lb).toFixed(2)}× the GPU bound; (c) is ${(c.makespanS / bound).toFixed(3)}× that floor. ` +
          'No client order or cache size gets under it without changing what vLLM does per image.'
      : cpuFloor > lb
        ? `the model says: host-CPU-bound. All of (c)'s CPU on ${CORES} cores needs ${h(cpuFloor)}, ${(cpuFloor / lb).toFixed(2)}× the GPU bound; ` +
          `(c) is ${(c.makespanS / lb).toFixed(3)}× the GPU bound.`
        : `the model says: GPU-bound; (c) is ${(c.makespanS / lb).toFixed(3)}× the GPU bound.`,
  );
  if (ablations.length) {
    const abLb =
      ABLATION_SAMPLE > 1
        ? gpuLowerBoundS(abPlan, { gpus: GPUS, gpuScale: GPU_SCALE, maxNumBatchedTokens: DEFAULT_MAX_NUM_BATCHED_TOKENS, outputTokens: OUTPUT_TOKENS })
        : lb;
    console.log(
      'what each change is worth: makespan against (c) on ' +
        `${ABLATION_SAMPLE > 1 ? `every ${ABLATION_SAMPLE}th video (${abPlan.requests} requests)` : 'the same plan'}:`,
    );
    for (const o of [abC, ...ablations]) console.log(`${line(o, abLb)}   ${(o.makespanS / abC.makespanS).toFixed(2)}× (c)`);
  }
  console.log(`bench wall ${((performance.now() - t0) / 1000).toFixed(0)} s on ${os.cpus().length} cores (load ${os.loadavg()[0].toFixed(1)})`);
}

/** Runs this file bundled by esbuild (as plan.ts does): tsx's per-access module getters double the simulation's time. */
async function bundled(): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-hostsim-js-'));
  try {
    const outfile = await bundleSelf(__filename, dir, 'hostSim.js');
    execFileSync(process.execPath, ['--max-old-space-size=4096', outfile, ...process.argv.slice(2), '--bundled'], { stdio: 'inherit' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(process.argv.includes('--bundled') ? main() : bundled()).catch((err) => {
  console.error(err);
  process.exit(1);
});
