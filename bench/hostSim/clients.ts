// The three clients the host bench plays the plan with, all on simulated time:
//  seedRunner   (a) the seed's runner as it describes itself (seed §4): one request per item × condition in
//               benchmark → condition → item order, WORKERS per GPU threads each making its request's frames
//               and then sending it, endpoints in turn (round-robin);
//  engineRunner (b)/(c) the product's own scheduler (src/core/runner/scheduler.ts, unchanged, with the order
//               runSweep gives it: longestFirstWithinWindows over videoJobs), its hooks backed by the
//               simulated frame pipeline and servers.
import type { SimClock } from './clock';
import type { SimPlan, SimRequest, SimVideo } from './workload';
import type { ImageBook, SimServer } from './server';
import { CPU_FRAMES, perRequestCpuS, pipelineCpuS, type FrameCostModel } from './ourFrames';
import { MediaPool } from '../../src/standins/vllm/cost/frontEnd';
import { Scheduler } from '../../src/core/runner/scheduler';
import { longestFirstWithinWindows } from '../../src/core/protocols/fp/sweep/videoOrder';
import type { VideoJob } from '../../src/core/protocols/fp/sweep/fpUnits';
import { DEFAULT_CONDITIONS } from '../../src/core/protocols/fp/rules/conditions';

export interface FrameCpu {
  /** CPU seconds our frames took. */
  cpuS: number;
  /** GPU seconds our frames took from the model's kernels (GPU frames only). */
  gpuS?: number;
}

export interface SeedOptions {
  cores: number;
  workersPerServer: number;
  /** 'seed': each request makes its own frames; 'pipeline': the frame pipeline's cost (decode once per video). */
  frames: 'seed' | 'pipeline';
}

export async function seedRunner(clock: SimClock, plan: SimPlan, servers: SimServer[], book: ImageBook, opts: SeedOptions): Promise<FrameCpu> {
  const condOrder = new Map(DEFAULT_CONDITIONS.map((c, i) => [c, i]));
  const bench = new Map(plan.benchmarks.map((b, i) => [b, i]));
  const list: { v: SimVideo; r: SimRequest }[] = [];
  for (const v of plan.videos) for (const r of v.requests) list.push({ v, r });
  list.sort(
    (x, y) =>
      bench.get(x.r.benchmark)! - bench.get(y.r.benchmark)! || condOrder.get(x.r.group.condition)! - condOrder.get(y.r.group.condition)! || x.r.item - y.r.item,
  );
  // The pipeline's cost spread over a video's requests in proportion to their frames (for the 'pipeline' variant).
  const share = new Map<SimVideo, number>();
  if (opts.frames === 'pipeline') {
    for (const v of plan.videos) {
      const own = v.requests.reduce((s, r) => s + perRequestCpuS(v, r), 0);
      share.set(v, own > 0 ? pipelineCpuS(v).cpuS / own : 0);
    }
  }
  const left = new Map<object, number>();
  for (const { r } of list) left.set(r.group, (left.get(r.group) ?? 0) + 1);
  const cores = new MediaPool(opts.cores);
  let next = 0;
  let turn = 0;
  let cpuS = 0;
  const worker = async () => {
    while (next < list.length) {
      const { v, r } = list[next++];
      const c = perRequestCpuS(v, r) * (opts.frames === 'pipeline' ? share.get(v)! : 1);
      cpuS += c;
      await clock.when(cores.run(clock.now, [c]), null);
      await servers[turn++ % servers.length].submit(v, r);
      const n = left.get(r.group)! - 1;
      left.set(r.group, n);
      if (n === 0) book.forget(r.group);
    }
  };
  const workers = Array.from({ length: opts.workersPerServer * servers.length }, worker);
  await Promise.all([Promise.all(workers), clock.run()]);
  return { cpuS };
}

export interface EngineOptions {
  cores: number;
  /** Parallel video preparations (the decode pool: defaultPoolSize = 4 on 16 cores). */
  prepConcurrency: number;
  capacity: number;
  tokenBudget?: number;
  warmVideos?: boolean;
  maxOpenVideos?: number;
  /** Where the frames are made (--frames-on): their CPU, slot wall and GPU cost per video. Default: the CPU path. */
  frames?: FrameCostModel;
}

export async function engineRunner(clock: SimClock, plan: SimPlan, servers: SimServer[], book: ImageBook, opts: EngineOptions): Promise<FrameCpu> {
  const byJob = new Map<VideoJob, { v: SimVideo; reqs: Map<string, SimRequest> }>();
  for (const v of plan.videos) byJob.set(v.job, { v, reqs: new Map(v.requests.map((r) => [r.key, r])) });
  let cpuS = 0;
  let gpuS = 0;
  const frames = opts.frames ?? CPU_FRAMES;
  // Each preparation gets its share of the cores (the pool runs prepConcurrency decodes, ffmpeg threads = cores / pool).
  const coresEach = opts.cores / opts.prepConcurrency;
  const sched = new Scheduler<VideoJob>(
    {
      servers: servers.map((_, i) => ({ endpoint: `gpu${i}`, capacity: opts.capacity, tokenBudget: opts.tokenBudget })),
      // runSweep's prefetch default
      prefetch: Math.max(2 * opts.prepConcurrency, servers.length * 2 + opts.prepConcurrency),
      prepConcurrency: opts.prepConcurrency,
      warmVideos: opts.warmVideos,
      maxOpenVideos: opts.maxOpenVideos,
    },
    {
      prepare: (job) => {
        const { v } = byJob.get(job)!;
        const c = pipelineCpuS(v, frames);
        cpuS += c.cpuS;
        gpuS += c.gpuS;
        // A GPU preparation holds its slot at least as long as the device takes (NVDEC, nvJPEG), whatever the cores.
        return clock.when(clock.now + Math.max(c.cpuS / coresEach, c.minWallS), true);
      },
      execute: async (task, job, server) => {
        const { v, reqs } = byJob.get(job)!;
        await servers[server.index].submit(v, reqs.get(task.key)!);
        return 'done';
      },
      videoFinished: (job) => {
        for (const r of byJob.get(job)!.v.requests) book.forget(r.group);
      },
    },
  );
  const jobs = plan.videos.map((v) => v.job);
  const done = sched.run(longestFirstWithinWindows(jobs, 64, 2 * opts.prepConcurrency));
  await Promise.all([done, clock.run()]);
  return { cpuS, gpuS };
}
