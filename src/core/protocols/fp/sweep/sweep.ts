// runSweep: one run of the sweep on a package, start to end. The foreground `run` verb and the detached
// worker both call it. It composes the run's units, each in its own file with its own test:
//   engine units (src/core/runner/): lock (lock.ts) · stop requests and signals (drainControl.ts) · failure cascades (runStopper.ts,
//   failFast.ts, requestChannel.ts) · status and ETA (statusReporter.ts, eta.ts) · metrics
//   (metricsPoller.ts) · server health (serverHealth.ts) · the scheduler (scheduler.ts), and
//   Frames × Pixels's own part (here in protocols/fp/sweep/: the plan, the pre-flight, units → requests → rows).
// Order of work:
//   lock → resume repair → load package → plan → NA / stored-reuse rows and no_video failures at once
//   → servers → pre-flight → scheduler over the plan's videos → rows written raw-then-CSV → timing per
//   cell → status file each second → summary line → lock released.
// A stop request (SIGTERM or the stop file) drains: no new request, the in-flight ones finish and their
// rows are written. A stop by the run's own judgement (fail-fast, pre-flight, no server left) fails the
// run (stopReason in the status file, exit 1): in-flight ones cut after STOP_GRACE_MS, unsent units stay todo.
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import { InputError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { formatShard } from '../shard/shard';
import { videoJobs, FpUnits, type VideoJob } from './fpUnits';
import { FpOutcomes } from './fpOutcomes';
import { openFpSweep } from './fpPlan';
import { preflightGate } from './fpPreflight';
import { OPEN_VIDEOS_PER_SERVER, fpServerSlot } from './kvBudget';
import { DEFAULT_CONDITIONS, PILOT_BENCHMARKS } from '../rules/conditions';
import { MAX_MODEL_LEN } from '../rules/constants';
import { VllmClient } from '../../../serving/client';
import { FailFastMonitor } from '../../../runner/failFast';
import type { FrameSource } from './frameSource';
import { makeRunIdentity, newRunId, writeRunIdentity } from '../../../runner/identity';
import { RunnerLog } from '../../../runner/logs';
import { FailureLog, TimingLog } from './dataLogs';
import { MetricsPoller } from '../../../runner/metricsPoller';
import type { Bottleneck } from '../../../runner/bottleneck';
import { serverVerdicts } from '../../../runner/bottleneckWindows';
import { RequestChannel } from '../../../runner/requestChannel';
import type { RunOptions } from './runOptions';
import { RunSession } from '../../../runner/runSession';
import { Scheduler, longestFirstWithinWindows } from '../../../runner/scheduler';
import { ServerHealth } from '../../../runner/serverHealth';
import type { ServerSet } from '../../../runner/servers';
import { FpStatusReporter } from './fpStatus';
import type { StopReason } from '../../../runner/stopReason';
import type { WorkerState, WorkerStatus } from '../status/statusSchema';

export interface SweepDeps {
  /** Starts (or attaches to) the servers. */
  servers(opts: RunOptions, layout: PackageLayout, log: RunnerLog): Promise<ServerSet>;
  frames(opts: RunOptions, layout: PackageLayout): Promise<FrameSource>;
}

export interface SweepHooks {
  /** Progress lines for a foreground run (stderr). */
  onLine?(line: string): void;
  /** Every status write (the foreground progress display). */
  onStatus?(s: WorkerStatus): void;
  /** Resolves/aborts to ask for a drain from inside the process (tests, the extension host). */
  stopSignal?: AbortSignal;
}

export interface SweepResult {
  exitCode: 0 | 1;
  state: WorkerState;
  summary: string;
  added: { ok: number; NA: number; reuse: number };
  failures: number;
  wallS: number;
  /** Why the run stopped on its own judgement (fail-fast, pre-flight, no server left); null otherwise. */
  stopReason: StopReason | null;
}

/** Videos reordered longest-first within windows of this many (see longestFirstWithinWindows). */
const VIDEO_WINDOW = 64;

export async function runSweep(opts: RunOptions, deps: SweepDeps, hooks: SweepHooks = {}): Promise<SweepResult> {
  const t0 = Date.now();
  const layout = new PackageLayout(opts.package);
  if (!existsSync(layout.samplesDir)) throw new InputError(`${layout.root} is not a run package (no items/samples/)`);
  const runId = newRunId();
  await fs.mkdir(layout.logsDir, { recursive: true });
  const log = new RunnerLog(layout, runId, hooks.onLine);
  let session: RunSession;
  try {
    session = await RunSession.open({ root: layout, runId, policy: 'drain', log, stopSignal: hooks.stopSignal });
  } catch (err) {
    await log.close();
    throw err;
  }
  const { drain, stopper } = session;
  const failures = new FailureLog(layout);
  const timing = new TimingLog(layout);
  let reporter: FpStatusReporter | null = null;
  let servers: ServerSet | null = null;
  let health: ServerHealth | null = null;
  let frames: FrameSource | null = null;
  let writerClose: (() => Promise<void>) | null = null;

  try {
    const benchmarks = opts.benchmarks ?? (opts.pilot ? [...PILOT_BENCHMARKS] : undefined);
    const conditions = opts.conditions ?? [...DEFAULT_CONDITIONS];
    const identity = makeRunIdentity(runId, { ...opts, benchmarks, conditions }, opts.endpoints ?? []);
    await writeRunIdentity(layout, identity);
    await log.info(
      `run ${runId} starting: pid ${process.pid} on ${os.hostname()}, commit ${identity.git_commit ?? '(none)'}, ` +
        `${identity.fpsweep_version ?? ''}, node ${process.version}; ${benchmarks ? `benchmarks ${benchmarks.join(',')}` : 'all benchmarks'}; ` +
        `conditions ${conditions.join(',')}; workers ${opts.workers}/server${opts.shard ? `; shard ${formatShard(opts.shard)}` : ''}`,
    );

    const { resumed, plan, book, todoCount } = await openFpSweep(layout, opts, { benchmarks, conditions, log, startedAt: t0 });
    const writer = resumed.writer;
    writerClose = () => writer.close();
    const outcomes = new FpOutcomes(plan, { writer, failures, timing, book, runId });
    let inFlight = () => 0;
    // Each server's bottleneck verdict since the scheduler started; frozen once it has finished.
    let verdicts: () => Bottleneck[] = () => [];
    const status = new FpStatusReporter(
      layout,
      {
        runId,
        pid: process.pid,
        startedAt: t0,
        mode: opts.benchmarks || opts.conditions ? 'custom' : opts.pilot ? 'pilot' : 'full',
        shard: opts.shard ? formatShard(opts.shard) : null,
        benchmarks: plan.benchmarks,
        conditions: plan.conditions,
      },
      {
        cells: () => book.progress(),
        inFlight: () => inFlight(),
        addedThisRun: () => writer.added.ok + writer.added.NA + writer.added.reuse,
        servers: () => {
          const v = verdicts();
          return (health?.status((i) => servers?.restarts(i) ?? 0) ?? []).map((sv, i) => ({ ...sv, bottleneck: v[i] ?? null }));
        },
        stopReason: () => stopper.stopReason,
      },
      hooks.onStatus,
    );
    reporter = status;
    await status.write();
    let metrics: MetricsPoller | null = null;
    session.onTick(() => {
      health?.tick();
      metrics?.tick();
      status.write().catch((err) => void log.error(`status file: ${(err as Error).message}`));
    });

    // Rows that need no request, and failures that need no attempt: written once the pre-flight passed
    // (or at once when no request is to be sent), so a run refused by its servers writes no row.
    const writeNoRequestRows = async () => {
      status.state = 'running';
      await outcomes.writeNoRequestRows();
    };
    if (todoCount === 0 || drain.requested) await writeNoRequestRows();

    if (todoCount > 0 && !drain.requested) {
      status.state = 'launching';
      await status.write();
      servers = await deps.servers(opts, layout, log);
      const set = servers;
      const urls = set.endpoints.map((e) => e.url);
      stopper.endpointUrls = urls;
      let scheduler: Scheduler<VideoJob> | null = null;
      const serverHealth = new ServerHealth(urls, {
        onUpChange: (i, up) => scheduler?.setServerUp(i, up),
        onStop: (reason) => stopper.stopFor(reason),
        log: (m) => void log.warn(m),
      });
      health = serverHealth;
      metrics = new MetricsPoller(
        set.endpoints.map((e) => new VllmClient(e, { maxRetries: 0, connections: 1 })),
        (i, f) => serverHealth.figures(i, f),
        2,
      );
      await log.info(`servers: ${urls.join(', ')} serving ${set.servedModel}`);
      frames = await deps.frames(opts, layout);
      const frameSource = frames;
      const clients = set.endpoints.map((e) => new VllmClient(e, { connections: opts.workers + 2 }));

      const upAtStart = urls.map((_, i) => i).filter((i) => (set.initialState?.(i) ?? 'up') === 'up');
      const refused = await preflightGate(layout, {
        runId,
        videos: plan.videos,
        frames: frameSource,
        servedModel: set.servedModel,
        clients,
        urls,
        upAtStart,
        log: (m) => log.info(m),
      });
      if (refused) stopper.stopFor(refused);
      else await writeNoRequestRows();
      set.onEvent((e) => serverHealth.event(e));

      const monitor = new FailFastMonitor({ sameInARow: opts.failSameInARow, firstRequests: opts.failFirstRequests, firstVideos: opts.failFirstVideos });
      const channel = new RequestChannel(clients, urls, { upSignal: set.upSignal?.bind(set), stopper, drain, monitor, contextTokens: MAX_MODEL_LEN });
      const units = new FpUnits(layout, frameSource, outcomes, {
        servedModel: set.servedModel,
        channel,
        videoDecoded: (o) => stopper.trip(monitor.video(o)),
        answered: (n, tokens) => status.throughput.answered(n, tokens),
      });
      const prepConcurrency = frameSource.concurrency;
      const sched = new Scheduler<VideoJob>(
        {
          servers: urls.map((endpoint, i) => fpServerSlot(endpoint, opts, set.kvTokens?.(i) ?? null)),
          prefetch: opts.prefetch ?? Math.max(2 * prepConcurrency, urls.length * 2 + prepConcurrency),
          prepConcurrency,
          maxOpenVideos: OPEN_VIDEOS_PER_SERVER,
        },
        {
          prepare: (job) => units.prepare(job),
          execute: (task, job, server, requeues) => units.execute(task, job, server, requeues),
          videoFinished: (job) => units.videoFinished(job),
          onFatal: (err) => void log.error(`stopping: ${(err as Error)?.stack ?? String(err)}`),
        },
      );
      scheduler = sched;
      serverHealth.handOver((i) => set.initialState?.(i) ?? 'up');
      inFlight = () => sched.stats().inFlight;
      drain.onDrain(() => sched.drain());
      const poller = metrics;
      await poller.startWindow();
      const bottleneckSources = {
        engineWindows: () => poller.engineWindows(),
        timeAccounts: () => sched.timeAccounts(),
        answeredTime: (i: number) => channel.answeredTime(i),
        capacity: opts.workers,
        maxNumSeqs: opts.endpoints?.length ? null : opts.maxSeqs,
        now: () => performance.now(),
      };
      verdicts = () => serverVerdicts(bottleneckSources);
      status.state = 'running';
      await status.write();
      // The run starts on the videos quickest to prepare (two rounds of the frame pool): the servers get
      // work after the shortest preparation instead of waiting on the costliest videos.
      await sched.run(longestFirstWithinWindows(videoJobs(plan.videos), VIDEO_WINDOW, 2 * prepConcurrency));
      await poller.poll();
      const final = serverVerdicts(bottleneckSources);
      verdicts = () => final;
      await Promise.all(clients.map((c) => c.close()));
    }
    await outcomes.writePartialTimings();
    await metrics?.close();
    const wallS = (Date.now() - t0) / 1000;
    const added = { ...writer.added };
    const nAdded = added.ok + added.NA + added.reuse;
    const left = book.progress().reduce((s, c) => s + c.todo, 0);
    const fatal = stopper.fatal;
    const completed = resumed.report.completed.length;
    const state: WorkerState = fatal ? 'failed' : drain.requested ? 'stopped' : 'done';
    const summary =
      `${state === 'done' ? 'done' : state === 'stopped' ? 'stopped' : 'FAILED'}: ${nAdded} rows added ` +
      `(ok ${added.ok}, NA ${added.NA}, reuse ${added.reuse}), ${failures.count} failure(s) logged` +
      `${completed ? `, ${completed} row(s) completed from raw records at start` : ''}` +
      `${left ? `, ${left} left to do` : ''}, wall ${wallS.toFixed(1)} s` +
      `${fatal ? ` — ${fatal.message}` : ''}`;
    status.state = state;
    status.message = fatal ? fatal.message : null;
    await log.info(summary);
    await status.write(summary);
    return { exitCode: fatal ? 1 : 0, state, summary, added, failures: failures.count, wallS, stopReason: stopper.stopReason };
  } catch (err) {
    const e = err as Error;
    const usage = e?.name === 'InputError' || e?.name === 'UsageError';
    await log.error(`run ${usage ? 'refused' : 'failed'}: ${usage ? e.message : (e?.stack ?? String(err))}`).catch(() => undefined);
    const summary = `FAILED: ${e?.message ?? String(err)}; wall ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    await reporter?.fail(e?.message ?? String(err), summary).catch(() => undefined);
    if (usage) throw err;
    // A server start refused for its context, every server gone, a disk error: a failed run with a
    // report, never a silent retry with other settings.
    return {
      exitCode: 1,
      state: 'failed',
      summary,
      added: { ok: 0, NA: 0, reuse: 0 },
      failures: failures.count,
      wallS: (Date.now() - t0) / 1000,
      stopReason: stopper.stopReason,
    };
  } finally {
    await writerClose?.().catch(() => undefined);
    await failures.close().catch(() => undefined);
    await timing.close().catch(() => undefined);
    health?.close();
    await frames?.close().catch(() => undefined);
    await servers?.close().catch(() => undefined);
    await session.close().catch(() => undefined);
    await log.close().catch(() => undefined);
  }
}
