// The sweep's requests: the servers (launched or given) with their health and metrics, the frame source,
// the pre-flight (a refusal stops the run before any row), then every todo unit through the engine's request
// runner (servers pull prepared videos; FpUnits turns a unit into its request and its answer into rows), and
// each server's bottleneck verdict, frozen at the end.
import { isUserError } from '../../../errors';
import { VllmClient } from '../../../serving/client';
import { MetricsPoller } from '../../../runner/metricsPoller';
import { serverVerdicts } from '../../../runner/bottleneckWindows';
import { FP_BOTTLENECK_WORDS } from './fpBottleneckWords';
import { fpHostCpuSampler, framesPathsText, placementForKnob, recordFramesPaths } from './fpHostCpu';
import { RequestRunner } from '../../../runner/requestRunner';
import { longestFirstWithinWindows } from './videoOrder';
import { ServerHealth } from '../../../runner/serverHealth';
import type { ServerSet } from '../../../runner/servers';
import type { ChatRequestBody } from '../../../serving/chatRequest';
import { MAX_MODEL_LEN } from '../rules/constants';
import type { PackageLayout } from '../package/layout';
import type { WorkPlan } from '../plan';
import { FpUnits, videoJobs, type VideoJob } from './fpUnits';
import type { FpOutcomes } from './fpOutcomes';
import { fpAdviseFailure } from './fpAdvice';
import { fpFailFast } from './fpFailFast';
import { preflightGate } from './fpPreflight';
import type { FpStatusReporter } from './fpStatus';
import { quickHeadVideos, type FrameSource, type FramesNeed } from './frameSource';
import { OPEN_VIDEOS_PER_SERVER, fpServerSlot } from './kvBudget';
import type { RunnerLog } from '../../../runner/logs';
import type { RunOptions } from './runOptions';
import type { SweepRun } from './sweepRun';

/** Videos reordered longest-first within windows of this many (see longestFirstWithinWindows). */
const VIDEO_WINDOW = 64;

export interface SweepServing {
  servers(opts: RunOptions, layout: PackageLayout, log: RunnerLog): Promise<ServerSet>;
  /** `need`: what the run will ask (a run that sends no frames starts no GPU helper). */
  frames(opts: RunOptions, layout: PackageLayout, need?: FramesNeed): Promise<FrameSource>;
}

export interface PlanToSend {
  plan: WorkPlan;
  outcomes: FpOutcomes;
  status: FpStatusReporter;
  /** NA and stored-reuse rows, no_video failures: written once the pre-flight passed. */
  writeNoRequestRows(): Promise<void>;
}

/** The servers, with their health and metrics in the run (so the status shows them from their start). */
async function startServers(run: SweepRun, opts: RunOptions, deps: SweepServing, onUpChange: (i: number, up: boolean) => void): Promise<ServerSet> {
  const set = await deps.servers(opts, run.layout, run.log);
  run.servers = set;
  const urls = set.endpoints.map((e) => e.url);
  run.session.stopper.endpointUrls = urls;
  run.session.stopper.advise = fpAdviseFailure;
  // Given endpoints: nothing of ours restarts them, so every one unreachable for --fail-down stops the run (resumable).
  const unreachable = { limitMs: opts.endpoints?.length ? opts.failDownS * 1000 : 0, name: `--fail-down ${opts.failDownS}` };
  const health = new ServerHealth(
    urls,
    {
      onUpChange,
      onStop: (reason) => run.session.stopper.stopFor(reason),
      log: (m) => void run.log.warn(m),
      advise: fpAdviseFailure,
    },
    undefined,
    unreachable,
  );
  run.health = health;
  run.metrics = new MetricsPoller(
    set.endpoints.map((e) => new VllmClient(e, { maxRetries: 0, connections: 1 })),
    (i, f) => health.figures(i, f),
    2,
  );
  await run.log.info(`servers: ${urls.join(', ')} serving ${set.servedModel}`);
  return set;
}

/** Where the run's frames were made, in its log and in the package's record (what `--frames-on auto` reads next). */
async function recordFramesUse(run: SweepRun, mode: string, frames: FrameSource): Promise<void> {
  const byPath = await frames.framesByPath?.();
  if (!byPath || byPath.cpu.videos + byPath.gpu.videos === 0) return;
  const placement = frames.placement;
  const reason = placement?.reason ?? 'frames on the CPU (--frames-on cpu)';
  await run.log.info(`${framesPathsText(byPath)}; ${reason}`);
  await recordFramesPaths(run.layout, {
    v: 1,
    runId: run.runId,
    mode,
    endedAt: new Date().toISOString(),
    use: placement?.use ?? 'cpu',
    reason,
    ...byPath,
    // A link refused is exit 2 (issue 42); any other failure of this record is a warning.
  }).catch((err: unknown) => (isUserError(err) ? Promise.reject(err) : run.log.warn(`frames record not written: ${(err as Error).message}`)));
}

export async function sendPlan(run: SweepRun, opts: RunOptions, deps: SweepServing, todo: PlanToSend): Promise<void> {
  const { session, log, layout } = run;
  const { stopper } = session;
  todo.status.state = 'launching';
  await todo.status.write();
  let runner: RequestRunner<VideoJob, ChatRequestBody> | null = null;
  // The frame source (and on the GPU path its helpers' start and warm-up) while the servers start (issue 45).
  const videosWithFrames = todo.plan.videos.filter((v) => v.units.some((u) => u.condition !== 'v_blind')).length;
  const framesStarting = deps.frames(opts, layout, { videosWithFrames });
  let set: ServerSet;
  try {
    set = await startServers(run, opts, deps, (i, up) => runner?.setServerUp(i, up));
  } catch (err) {
    await framesStarting.then(
      (f) => f.close(),
      () => undefined,
    );
    throw err;
  }
  const urls = set.endpoints.map((e) => e.url);
  const health = run.health!;
  const frames = await framesStarting;
  run.frames = frames;
  // A drain sends no new request: the decodes under way are ended, none starts (issue 43: a cancel's drain waited
  // for a decode that its signal had missed, a long video's, and the worker outlived its cancel).
  session.drain.onDrain(() => {
    const ended = frames.stopDecodes?.() ?? 0;
    if (ended > 0) void log.info(`stop: ${ended} decode(s) under way ended; their videos stay to do`);
  });
  const clients = set.endpoints.map((e) => new VllmClient(e, { connections: opts.workers + 2 }));

  const upAtStart = urls.map((_, i) => i).filter((i) => (set.initialState?.(i) ?? 'up') === 'up');
  const refused = await preflightGate(layout, {
    runId: run.runId,
    videos: todo.plan.videos,
    frames,
    servedModel: set.servedModel,
    clients,
    urls,
    upAtStart,
    log: (m) => log.info(m),
    interrupted: (why) => session.drain.request(`a child was stopped from outside: ${why}`),
  });
  if (refused) stopper.stopFor(refused);
  else await todo.writeNoRequestRows();
  set.onEvent((e) => health.event(e));

  const monitor = fpFailFast(opts);
  const prepConcurrency = frames.concurrency;
  let units: FpUnits | null = null;
  const requests = new RequestRunner<VideoJob, ChatRequestBody>(
    session,
    { urls, senders: clients, upSignal: set.upSignal?.bind(set) },
    {
      prepare: (job) => units!.prepare(job),
      execute: (task, job, server, requeues) => units!.execute(task, job, server, requeues),
      jobFinished: (job) => units!.videoFinished(job),
      onFatal: (err) => void log.error(`stopping: ${isUserError(err) ? err.message : ((err as Error)?.stack ?? String(err))}`),
    },
    {
      slots: urls.map((endpoint, i) => fpServerSlot(endpoint, opts, set.kvTokens?.(i) ?? null)),
      prefetch: opts.prefetch ?? Math.max(2 * prepConcurrency, urls.length * 2 + prepConcurrency),
      prepConcurrency,
      maxOpenVideos: OPEN_VIDEOS_PER_SERVER,
      monitor,
      contextTokens: MAX_MODEL_LEN,
      reach: health,
    },
  );
  runner = requests;
  units = new FpUnits(layout, frames, todo.outcomes, {
    servedModel: set.servedModel,
    channel: requests.channel,
    videoDecoded: (o) => stopper.trip(monitor.prepared(o)),
    answered: (n, tokens) => todo.status.throughput.answered(n, tokens),
    interrupted: (why) => session.drain.request(`a child was stopped from outside: ${why}`),
  });
  health.handOver((i) => set.initialState?.(i) ?? 'up');
  run.inFlight = () => requests.stats().inFlight;
  const poller = run.metrics!;
  await poller.startWindow();
  // The host's CPU over the same window as the verdicts (the servers' loading left out).
  run.placement = frames.placement ?? null;
  const sampler = fpHostCpuSampler(
    layout,
    { runId: run.runId, mode: todo.status.mode },
    () => set.serverPids?.() ?? [],
    (m) => void log.warn(m),
  );
  await sampler.start();
  run.hostCpu = sampler;
  const bottleneckSources = {
    engineWindows: () => poller.engineWindows(),
    timeAccounts: () => requests.timeAccounts(),
    answeredTime: (i: number) => requests.channel.answeredTime(i),
    capacity: opts.workers,
    maxNumSeqs: opts.endpoints?.length ? null : opts.maxSeqs,
    now: () => performance.now(),
    words: FP_BOTTLENECK_WORDS,
  };
  run.verdicts = () => serverVerdicts(bottleneckSources);
  todo.status.state = 'running';
  await todo.status.write();
  // The run starts on the videos quickest to prepare (two rounds of the frame pool): the servers get
  // work after the shortest preparation instead of waiting on the costliest videos.
  await requests.run(longestFirstWithinWindows(videoJobs(todo.plan.videos), VIDEO_WINDOW, quickHeadVideos(frames)));
  await poller.poll();
  await sampler.stop();
  await recordFramesUse(run, todo.status.mode, frames);
  run.placement = await placementForKnob(sampler.status(), frames.placement ?? run.placement);
  const final = serverVerdicts(bottleneckSources);
  run.verdicts = () => final;
  await Promise.all(clients.map((c) => c.close()));
}
