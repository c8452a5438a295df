// runSweep: one run of the sweep on a package, start to end. The foreground `run` verb and the detached
// worker both call it. Order of work:
//   lock → resume repair (resume.ts) → load package (problems to runner.log with file:line) → plan
//   → NA / stored-reuse rows and no_video failures at once → servers → scheduler over the plan's videos
//   (frames prepared ahead, requests with affinity) → rows written raw-then-CSV → timing per cell
//   → status file each second → summary line → lock released.
// A stop request (SIGTERM or the stop file) drains: no new request, the in-flight ones finish and their
// rows are written. A server that cannot serve 65,536 tokens stops the run with a report.
// Before any row: the pre-flight (preflight.ts) sends one real unit to each server; a refusal stops the
// run. During the sweep the fail-fast monitor (failFast.ts) sees every outcome; when requests keep
// failing the same way it stops the run (stopReason in the status file, exit 1) instead of logging the
// whole plan as failures: no new request, in-flight ones cut after STOP_GRACE_MS, unsent units stay todo.
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import { PackageLayout } from '../package/layout';
import { loadPackage } from '../package/load';
import { applyShard, formatShard } from '../protocols/fp/shard/shard';
import type { FailureKind, RawRecord, TimingRecord } from '../package/schemas';
import { readFailedKeys } from '../package/failedKeys';
import { unitKey } from '../package/unitKey';
import { buildWorkPlan, loadVideoFramePlans, type VideoWork, type WorkUnit } from '../protocols/fp/plan';
import { DEFAULT_CONDITIONS, PILOT_BENCHMARKS } from '../protocols/fp/rules/conditions';
import { MAX_MODEL_LEN } from '../protocols/fp/rules/constants';
import { parseAnswerLetter, scoreAnswer } from '../protocols/fp/rules/answer';
import type { SendPlan } from '../protocols/fp/rules/plan';
import { VllmClient } from '../serving/client';
import { parseVllmMetrics } from '../serving/metrics';
import { CellBook } from './cells';
import { FailFastMonitor, type Trip } from './failFast';
import { adviseFailure } from './failureAdvice';
import { buildProbe, preflightServers, writePreflight } from './preflight';
import type { PreflightRecord } from './preflightSchema';
import { unitRequestBody } from './unitRequest';
import { stopFile } from './control';
import type { FrameSource, PreparedVideoFrames } from './frameSource';
import { makeRunIdentity, newRunId, writeRunIdentity } from './identity';
import { acquireLock } from './lock';
import { FailureLog, RunnerLog, TimingLog } from './logs';
import { naRecord, okRecord, reuseRecord } from './records';
import { resumeResults } from './resume';
import type { RunOptions } from './runOptions';
import { Scheduler, longestFirstWithinWindows, type SchedServerInfo, type SchedTask, type SchedVideo, type TaskOutcome } from './scheduler';
import { ContextCapacityError, refusalContextLength, type ServerSet, type ServerState } from './servers';
import { writeStatusAtomic } from './status';
import type { ServerStatus, StopReason, WorkerState, WorkerStatus } from './statusSchema';

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

/** A re-queued request goes to another server at most this many times before it is a failure. */
const MAX_REQUEUES = 3;
/** Videos reordered longest-first within windows of this many (see longestFirstWithinWindows). */
const VIDEO_WINDOW = 64;
/** With every server down this long, the run stops (launched servers restart within minutes). */
const ALL_DOWN_LIMIT_MS = Number(process.env.FPSWEEP_ALL_DOWN_LIMIT_MS) || 10 * 60_000;
/** After a fail-fast stop, in-flight requests get this long to end before they are cut (and stay todo). */
const STOP_GRACE_MS = 20_000;

/** A run stopped by its own judgement (fail-fast, pre-flight, no server left), with the reason to show. */
export class SystematicFailureError extends Error {
  constructor(readonly reason: StopReason) {
    super(`${reason.detail}; the server said: "${reason.message}"`);
    this.name = 'SystematicFailureError';
  }
}

interface VideoJob extends SchedVideo {
  work: VideoWork;
  units: Map<string, WorkUnit>;
  plans: Map<string, SendPlan> | null;
  prepared: PreparedVideoFrames | null;
}

function isoNow(): string {
  return new Date().toISOString();
}

export async function runSweep(opts: RunOptions, deps: SweepDeps, hooks: SweepHooks = {}): Promise<SweepResult> {
  const t0 = Date.now();
  const layout = new PackageLayout(opts.package);
  if (!existsSync(layout.samplesDir)) throw new (await import('../errors')).InputError(`${layout.root} is not a run package (no items/samples/)`);
  const runId = newRunId();
  const echo = hooks.onLine;
  await fs.mkdir(layout.logsDir, { recursive: true });
  const log = new RunnerLog(layout, runId, echo);
  const lock = await acquireLock(layout, runId, (m) => void log.warn(m));
  const failures = new FailureLog(layout);
  const timing = new TimingLog(layout);
  let status: WorkerStatus | null = null;
  let statusTimer: NodeJS.Timeout | null = null;
  let servers: ServerSet | null = null;
  let frames: FrameSource | null = null;
  let writerClose: (() => Promise<void>) | null = null;
  const onSigterm = (sig: NodeJS.Signals) => {
    // A second Ctrl-C in the foreground means "now": rows already written are safe, the rest resumes.
    if (drainRequested && sig === 'SIGINT') process.exit(130);
    requestDrain(sig);
  };
  let drainRequested: string | null = null;
  let scheduler: Scheduler<VideoJob> | null = null;
  let fatal: Error | null = null;
  let stopReason: StopReason | null = null;
  /** Cuts in-flight requests after a fail-fast stop (their units stay todo). */
  const cutInFlight = new AbortController();
  let cutTimer: NodeJS.Timeout | null = null;
  let closing = false;
  function requestDrain(why: string) {
    if (drainRequested) return;
    drainRequested = why;
    void log.info(`stop requested (${why}): draining — no new requests; in-flight ones finish and are written`);
    scheduler?.drain();
  }
  /** Stops the run on its own judgement: the reason in the log, the status file and the last line. */
  function stopFor(reason: StopReason) {
    if (fatal) return;
    stopReason = reason;
    fatal = new SystematicFailureError(reason);
    void log.error(`stopping: ${reason.detail}`);
    void log.error(`  the server said: ${reason.message}${reason.server ? ` (${reason.server})` : ''}`);
    void log.error(`  likely: ${reason.meaning}`);
    void log.error(`  do: ${reason.action}`);
    requestDrain(reason.rule === 'preflight' ? 'pre-flight failed' : 'systematic failure');
    cutTimer = setTimeout(() => cutInFlight.abort(new Error('fail-fast stop')), STOP_GRACE_MS);
  }
  const monitor = new FailFastMonitor({ sameInARow: opts.failSameInARow, firstRequests: opts.failFirstRequests, firstVideos: opts.failFirstVideos });
  let endpointUrls: string[] = [];
  const onTrip = (t: Trip | null) => {
    if (!t) return;
    const a = adviseFailure(t.message, t.status, t.kind);
    stopFor({ rule: t.rule, kind: t.kind, message: t.message, meaning: a.meaning, action: a.action,
      server: t.server !== null ? endpointUrls[t.server] ?? null : null, detail: `fail-fast: ${t.detail}` });
  };
  process.on('SIGTERM', onSigterm);
  process.on('SIGINT', onSigterm);
  hooks.stopSignal?.addEventListener('abort', () => requestDrain('stop signal'), { once: true });

  try {
    await fs.rm(stopFile(layout), { force: true });
    const benchmarks = opts.benchmarks ?? (opts.pilot ? [...PILOT_BENCHMARKS] : undefined);
    const conditions = opts.conditions ?? [...DEFAULT_CONDITIONS];
    const identity = makeRunIdentity(runId, { ...opts, benchmarks, conditions }, opts.endpoints ?? []);
    await writeRunIdentity(layout, identity);
    await log.info(`run ${runId} starting: pid ${process.pid} on ${os.hostname()}, commit ${identity.git_commit ?? '(none)'}, `
      + `${identity.fpsweep_version ?? ''}, node ${process.version}; ${benchmarks ? `benchmarks ${benchmarks.join(',')}` : 'all benchmarks'}; `
      + `conditions ${conditions.join(',')}; workers ${opts.workers}/server${opts.shard ? `; shard ${formatShard(opts.shard)}` : ''}`);

    // Resume: torn tails aside, rows completed from raw records that lost theirs.
    const resumed = await resumeResults(layout);
    writerClose = () => resumed.writer.close();
    const writer = resumed.writer;
    const rep = resumed.report;
    if (rep.csvTorn) await log.warn(`results CSV: torn last line (${rep.csvTorn.bytes} bytes, ${rep.csvTorn.reason}) moved to ${layout.resultsCsvTorn}`);
    for (const t of rep.rawTorn) await log.warn(`${t.file}: torn last line (${t.bytes} bytes, ${t.reason}) moved to ${t.sideFile}`);
    for (const r of rep.completed) await log.info(`resume: CSV row completed from its raw record for (${r.benchmark}, ${r.item_id}, ${r.condition})`);
    for (const n of rep.notes) await log.warn(n);
    for (const p of resumed.csv.problems) await log.problem(p);

    // --shard K/N: the shard's items only, so the plan, the cells and the status count the shard's own work.
    const pkg = applyShard(await loadPackage(layout, { benchmarks }), opts.shard);
    for (const p of pkg.problems) await log.problem(p);
    const plan = await buildWorkPlan(pkg, resumed.csv, { conditions, metaCache: 'update' });
    const itemCounts = new Map([...pkg.items].map(([b, items]) => [b, items.length]));
    // Units that failed in an earlier run count as failed (not untouched work) until asked again, as in the dry run.
    const failedBefore = await readFailedKeys(layout.failuresLog);
    for (const p of failedBefore.problems) await log.problem(p);
    const book = new CellBook(plan, itemCounts, t0, failedBefore.keys);
    const todoCount = plan.units.filter((u) => u.status === 'todo').length;
    await log.info(`plan: ${plan.units.length} unit(s) to resolve — ${todoCount} request(s) over ${plan.videos.length} video(s), `
      + `${plan.units.filter((u) => u.status === 'NA').length} NA, ${plan.units.filter((u) => u.status === 'reuse').length} reuse, `
      + `${plan.units.filter((u) => u.status === 'no_video' || u.status === 'bad_meta').length} without video`);

    // Live figures for the status file.
    const recent: { t: number; frames: number; tokens: number }[] = [];
    let inFlight = () => 0;
    const serverState: { state: ServerState; message: string | null; running: number | null; waiting: number | null }[] = [];
    let workerState: WorkerState = 'starting';
    let remainingTokens = plan.units.reduce((s, u) => s + (u.status === 'todo' ? (Number.isFinite(u.predictedPromptTokens) ? u.predictedPromptTokens! : 0) : 0), 0);
    const mode = opts.benchmarks || opts.conditions ? 'custom' : opts.pilot ? 'pilot' : 'full';
    const makeStatus = (summary: string | null, message: string | null): WorkerStatus => {
      const now = Date.now();
      while (recent.length && recent[0].t < now - 120_000) recent.shift();
      const span = recent.length ? Math.max(10, (now - Math.max(recent[0].t, t0)) / 1000) : 0;
      const rpm = span ? (recent.length / span) * 60 : 0;
      const fps = span ? recent.reduce((s, r) => s + r.frames, 0) / span : 0;
      const tps = span ? recent.reduce((s, r) => s + r.tokens, 0) / span : 0;
      const cells = book.progress();
      const totals = {
        total: cells.reduce((s, c) => s + c.total, 0),
        done: cells.reduce((s, c) => s + c.done, 0),
        todo: cells.reduce((s, c) => s + c.todo, 0),
        inFlight: inFlight(),
        failed: cells.reduce((s, c) => s + c.failed + c.noVideo, 0),
        failedBefore: cells.reduce((s, c) => s + c.failedBefore, 0),
        addedThisRun: writer.added.ok + writer.added.NA + writer.added.reuse,
      };
      const svs: ServerStatus[] = (servers?.endpoints ?? []).map((e, index) => ({
        index, endpoint: e.url, state: serverState[index]?.state ?? 'starting', running: serverState[index]?.running ?? null,
        waiting: serverState[index]?.waiting ?? null, restarts: servers?.restarts(index) ?? 0, message: serverState[index]?.message ?? null,
      }));
      return {
        version: 1, pid: process.pid, runId, startedAt: new Date(t0).toISOString(), updatedAt: new Date(now).toISOString(),
        state: workerState, mode, shard: opts.shard ? formatShard(opts.shard) : null, benchmarks: plan.benchmarks, conditions: plan.conditions, message, totals, cells,
        throughput: { requestsPerMin: rpm, framesPerSec: fps },
        etaSeconds: totals.todo === 0 ? 0 : tps > 0 ? remainingTokens / tps : rpm > 0 ? (totals.todo / rpm) * 60 : null,
        servers: svs, summary, stopReason,
      };
    };
    let statusMessage: string | null = null;
    // One status write at a time (the timer and the run's own milestones both write).
    let statusChain: Promise<void> = Promise.resolve();
    const writeStatus = (summary: string | null = null): Promise<void> => {
      const next = statusChain.then(async () => {
        status = makeStatus(summary, statusMessage);
        await writeStatusAtomic(layout, status);
        hooks.onStatus?.(status);
      });
      statusChain = next.catch(() => undefined);
      return next;
    };
    await writeStatus();
    let metricsTick = 0;
    let allDownSince: number | null = null;
    statusTimer = setInterval(() => {
      if (existsSync(stopFile(layout))) requestDrain('stop file');
      // No server up for this long (given endpoints that never come back): stop with a report.
      if (servers && serverState.length && serverState.every((x) => x.state !== 'up')) {
        allDownSince ??= Date.now();
        if (Date.now() - allDownSince > ALL_DOWN_LIMIT_MS && !fatal) {
          const words = serverState.map((x, i) => `server ${i}: ${x.message ?? x.state}`).join('; ');
          const a = adviseFailure(words, null, 'server_down');
          stopFor({ rule: 'servers_down', kind: 'server_down', message: words, meaning: a.meaning, action: `${a.action}; see logs/runner.log`,
            server: null, detail: `no server has been up for ${Math.round(ALL_DOWN_LIMIT_MS / 60000)} min` });
        }
      } else allDownSince = null;
      if (servers && ++metricsTick % 5 === 0) void pollMetrics();
      writeStatus().catch((err) => void log.error(`status file: ${(err as Error).message}`));
    }, 1000);
    const metricClients: VllmClient[] = [];
    const pollMetrics = async () => {
      await Promise.all(metricClients.map(async (c, i) => {
        try {
          const r = await c.get('/metrics', 2000);
          if (r.status === 200) {
            const m = parseVllmMetrics(r.text);
            serverState[i] = { ...serverState[i], running: m.running, waiting: m.waiting };
          }
        } catch {
          /* health comes from the monitor; metrics are best effort */
        }
      }));
    };

    // Rows that need no request, and failures that need no attempt.
    const writeTiming = async (t: TimingRecord | null) => {
      if (t) await timing.write({ ...t, run_id: runId, complete: true });
    };
    const resolvedTodo = new Set<WorkUnit>();
    const resolve = (u: WorkUnit) => {
      if (u.status !== 'todo' || resolvedTodo.has(u)) return;
      resolvedTodo.add(u);
      if (Number.isFinite(u.predictedPromptTokens)) remainingTokens = Math.max(0, remainingTokens - u.predictedPromptTokens!);
    };
    const fail = async (u: WorkUnit, kind: FailureKind, message: string, endpoint: string | null, attempts: number, decodeS = 0) => {
      resolve(u);
      await failures.write({ benchmark: u.benchmark, item_id: u.item.item_id, condition: u.condition, kind, message, endpoint, attempts, ts: isoNow() });
      await writeTiming(book.failed(u, kind, decodeS));
      // Reuse rows waiting for this unit fail with it (SPEC §2.4: the source row must exist first).
      for (const d of u.dependents ?? []) {
        await failures.write({ benchmark: d.benchmark, item_id: d.item.item_id, condition: d.condition, kind,
          message: `reuses ${u.condition}, which failed: ${message}`, endpoint, attempts: 0, ts: isoNow() });
        await writeTiming(book.failed(d, kind));
      }
    };
    const writeRow = async (u: WorkUnit, rec: RawRecord, t?: { latency_s: number; decode_s: number; prompt_tokens: number }) => {
      resolve(u);
      await writer.write(rec);
      await writeTiming(book.rowWritten(u, rec.status, t));
    };
    // Written once the pre-flight passed (or at once when no request is to be sent): a run refused by its
    // servers writes no row.
    const writeNoRequestRows = async () => {
      workerState = 'running';
      for (const u of plan.units) {
        if (u.status === 'NA') await writeRow(u, naRecord(u));
        else if (u.status === 'reuse' && u.reuse?.stored) {
          await writeRow(u, reuseRecord(u, u.reuse.fromCondition, u.reuse.stored.pred, u.reuse.stored.correct, null));
        } else if (u.status === 'no_video' || u.status === 'bad_meta') {
          await fail(u, u.status, u.message ?? u.status, null, 0);
        }
      }
    };
    if (todoCount === 0 || drainRequested) await writeNoRequestRows();

    if (todoCount > 0 && !drainRequested) {
      workerState = 'launching';
      await writeStatus();
      servers = await deps.servers(opts, layout, log);
      const set = servers;
      endpointUrls = set.endpoints.map((e) => e.url);
      set.endpoints.forEach((e, i) => {
        serverState[i] = { state: 'up', message: null, running: null, waiting: null };
        metricClients.push(new VllmClient(e, { maxRetries: 0, connections: 1 }));
      });
      await log.info(`servers: ${set.endpoints.map((e) => e.url).join(', ')} serving ${set.servedModel}`);
      frames = await deps.frames(opts, layout);
      const frameSource = frames;
      const clients = set.endpoints.map((e) => new VllmClient(e, { connections: opts.workers + 2 }));

      // Pre-flight: one real unit on each server that is up, before any row (preflight.ts).
      const upAtStart = set.endpoints.map((_, i) => i).filter((i) => (set.initialState?.(i) ?? 'up') === 'up');
      const built = await buildProbe(layout, plan.videos, frameSource);
      const pre: PreflightRecord = { run_id: runId, ts: isoNow(), ok: !built.probe && !built.problem, unit: built.probe?.info ?? null,
        problem: built.problem, servers: [] };
      if (built.probe) {
        try {
          pre.servers = await preflightServers(built.probe, set.servedModel, upAtStart.map((i) => clients[i]), upAtStart.map((i) => set.endpoints[i].url));
        } finally {
          built.probe.release();
        }
        pre.ok = pre.servers.length > 0 && pre.servers.every((x) => x.ok);
      }
      await writePreflight(layout, pre);
      const probeName = pre.unit ? `${pre.unit.benchmark}/${pre.unit.item_id}/${pre.unit.condition} (${pre.unit.n_frames} frame(s)`
        + `${pre.unit.width ? ` ${pre.unit.width}×${pre.unit.height}` : ''} as ${pre.unit.frames_as})` : '(no unit)';
      if (pre.ok) {
        await log.info(`pre-flight ok: ${probeName} → ${pre.servers.map((x) => `${x.endpoint} prompt_tokens ${x.prompt_tokens} `
          + `(predicted ${pre.unit?.predicted_prompt_tokens ?? '?'}), finish ${x.finish_reason}`).join('; ') || 'nothing to send'}`);
      } else {
        const bad = pre.servers.find((x) => !x.ok);
        const message = bad?.problem ?? pre.problem ?? 'no server is up';
        const a = bad ? { meaning: bad.meaning!, action: bad.action! } : adviseFailure(message, null, built.problem ? 'decode' : 'server_down');
        stopFor({ rule: 'preflight', kind: bad ? 'request' : built.problem ? 'decode' : 'server_down', message, meaning: a.meaning, action: a.action,
          server: bad?.endpoint ?? null, detail: `pre-flight failed${bad ? ` on ${bad.endpoint}` : ''}: ${probeName}; no sweep work was done` });
      }
      if (!stopReason) await writeNoRequestRows();
      const serverUp = set.endpoints.map(() => true);
      set.onEvent((e) => {
        if (closing) return; // our own shutdown of the servers
        const st: ServerState = e.state === 'failed' ? 'down' : e.state;
        serverState[e.index] = { ...(serverState[e.index] ?? { running: null, waiting: null }), state: st, message: e.message ?? null };
        const up = e.state === 'up';
        if (serverUp[e.index] !== up) {
          serverUp[e.index] = up;
          void log.warn(`server ${e.index} (${set.endpoints[e.index].url}) is ${e.state}${e.message ? `: ${e.message}` : ''}`);
          scheduler?.setServerUp(e.index, up);
        }
        if (e.state === 'failed' && serverUp.every((x) => !x) && set.endpoints.every((_, i) => serverState[i]?.state === 'down')) {
          const words = e.message ?? 'gave up';
          const a = adviseFailure(words, null, 'server_down');
          stopFor({ rule: 'servers_down', kind: 'server_down', message: words, meaning: a.meaning, action: `${a.action}; see logs/vllm_gpu*.log`,
            server: set.endpoints[e.index].url, detail: `every server has failed, one after another (last: server ${e.index})` });
        }
      });

      // Videos: longest work first within the prefetch window is the scheduler's business; here each
      // video becomes a job whose tasks are its todo units.
      const jobs: VideoJob[] = plan.videos.map((work) => {
        const units = new Map<string, WorkUnit>();
        const tasks: SchedTask[] = [];
        for (const u of work.units) {
          const key = unitKey(u.benchmark, u.item.item_id, u.condition);
          units.set(key, u);
          tasks.push({ key, group: `${work.hash}\u0000${u.condition}`, cost: Math.max(1, Number.isFinite(u.predictedPromptTokens) ? u.predictedPromptTokens! : 1) });
        }
        return { key: work.hash, tasks, work, units, plans: null, prepared: null };
      });

      const execute = async (task: SchedTask, job: VideoJob, server: SchedServerInfo, requeues: number): Promise<TaskOutcome> => {
        const u = job.units.get(task.key)!;
        const plan = job.plans!.get(u.condition)!;
        const fr = job.prepared!.get(task.key);
        if (!fr.ok) throw new Error(`internal: request ${task.key} has no frames`);
        const images = await fr.images();
        const body = unitRequestBody(set.servedModel, u, images);
        const up = set.upSignal?.(server.index);
        const res = await clients[server.index].chat(body, up ? AbortSignal.any([up, cutInFlight.signal]) : cutInFlight.signal);
        if (res.ok) {
          monitor.request({ server: server.index, ok: true });
          const pred = parseAnswerLetter(res.text);
          const correct = scoreAnswer(pred, u.item.answer);
          const rec = okRecord(u, plan, { response: res.text, pred, correct, promptTokens: res.usage.prompt_tokens,
            completionTokens: res.usage.completion_tokens, latency_s: res.latency_s, endpoint: server.endpoint });
          recent.push({ t: Date.now(), frames: images.length, tokens: res.usage.prompt_tokens });
          await writeRow(u, rec, { latency_s: res.latency_s, decode_s: fr.decodeS, prompt_tokens: res.usage.prompt_tokens });
          job.prepared!.release(task.key);
          for (const d of u.dependents ?? []) await writeRow(d, reuseRecord(d, u.condition, pred, correct, res.text));
          return 'done';
        }
        // Cut by a fail-fast stop: no answer came, so the unit is not a failure; it stays todo for the next run.
        if (cutInFlight.signal.aborted) return 'requeue';
        if (res.kind === 'server_down' || (res.kind === 'request' && res.status === null)) {
          // The server went away (the monitor moves its other work): this request goes elsewhere. Not a
          // failure, so not fail-fast's business: a server that keeps dying is the servers_down rule's.
          if (requeues < MAX_REQUEUES && !drainRequested) return 'requeue';
        }
        // A refusal the plan predicted (SPEC §2.5) is an answer, not a sign of a broken setup.
        onTrip(monitor.request({ server: server.index, ok: false, kind: res.kind, message: res.message, status: res.status,
          expected: res.kind === 'context' && u.contextRefusal === true }));
        if (res.kind === 'context') {
          const len = refusalContextLength(res.message);
          if (len !== null && len < MAX_MODEL_LEN) {
            // The server cannot hold the protocol's context: no request of this run is safe to send.
            fatal = new ContextCapacityError(`${server.endpoint} refused a request with a context of ${len} tokens < ${MAX_MODEL_LEN} `
              + `(${res.message}); restart it with --max-model-len ${MAX_MODEL_LEN} — the run never lowers it`);
            await fail(u, 'context', res.message, server.endpoint, res.attempts);
            requestDrain('server context too small');
            return 'done';
          }
        }
        await fail(u, res.kind, res.message, server.endpoint, res.attempts + requeues, fr.decodeS);
        job.prepared!.release(task.key);
        return 'done';
      };

      const prepConcurrency = frameSource.concurrency;
      scheduler = new Scheduler<VideoJob>({
        servers: set.endpoints.map((e) => ({ endpoint: e.url, capacity: opts.workers })),
        prefetch: opts.prefetch ?? Math.max(2 * prepConcurrency, set.endpoints.length * 2 + prepConcurrency),
        prepConcurrency,
      }, {
        prepare: async (job) => {
          const fp = await loadVideoFramePlans(layout, job.work);
          if (fp.kind !== 'ok') {
            for (const u of job.work.units) await fail(u, fp.kind, fp.message, null, 0);
            return false;
          }
          job.plans = fp.plans;
          const requests = job.tasks.map((t) => ({ key: t.key, plan: fp.plans.get(job.units.get(t.key)!.condition)! }));
          job.prepared = await frameSource.prepare(job.work.hash, fp.meta, requests);
          // Requests whose frames could not be made (decode, no_video) fail here; the rest go on.
          const kept: SchedTask[] = [];
          let decoded = false;
          let decodeFailure: string | null = null;
          for (const t of job.tasks) {
            const r = job.prepared.get(t.key);
            if (r.ok) {
              kept.push(t);
              if (r.nFrames > 0) decoded = true;
            } else {
              if (r.kind === 'decode') decodeFailure ??= r.message;
              await fail(job.units.get(t.key)!, r.kind, r.message, null, 0, r.decodeS);
            }
          }
          // The video as one decode outcome for the fail-fast monitor (a broken ffmpeg fails them all).
          if (decoded || decodeFailure !== null) onTrip(monitor.video(decoded ? { ok: true } : { ok: false, message: decodeFailure! }));
          job.tasks = kept;
          if (kept.length === 0) job.prepared.release();
          return kept.length > 0;
        },
        execute,
        videoFinished: (job) => {
          job.prepared?.release();
          job.prepared = null;
          job.plans = null;
        },
        onFatal: (err) => void log.error(`stopping: ${(err as Error)?.stack ?? String(err)}`),
      });
      const sched = scheduler;
      set.endpoints.forEach((_, i) => {
        const st = set.initialState?.(i) ?? 'up';
        if (st !== 'up') {
          serverUp[i] = false;
          serverState[i] = { ...serverState[i], state: st === 'failed' ? 'down' : st };
          sched.setServerUp(i, false);
        }
      });
      inFlight = () => sched.stats().inFlight;
      if (drainRequested) sched.drain();
      workerState = 'running';
      await writeStatus();
      // The run starts on the videos quickest to prepare (two rounds of the frame pool): the servers get
      // work after the shortest preparation instead of waiting on the costliest videos.
      await sched.run(longestFirstWithinWindows(jobs, VIDEO_WINDOW, 2 * prepConcurrency));
      await Promise.all(clients.map((c) => c.close()));
    }
    // Cells left incomplete by a stop: their timing so far, marked partial (a resumed run adds the rest).
    for (const c of book.cells.values()) {
      if (!c.timingWritten && c.firstAt !== null) {
        await timing.write({ benchmark: c.benchmark, condition: c.condition, infer: c.infer, infer_s: Math.round(c.infer_s * 1000) / 1000,
          decode_s: Math.round(c.decode_s * 1000) / 1000, prompt_tokens: c.prompt_tokens, na: c.naWritten, reuse: c.reuseWritten,
          failed: c.failed + c.noVideo, wall_s: Math.round((Date.now() - c.firstAt) / 1000 * 1000) / 1000, run_id: runId, complete: false });
      }
    }
    await Promise.all(metricClients.map((c) => c.close()));
    const wallS = (Date.now() - t0) / 1000;
    const added = { ...writer.added };
    const nAdded = added.ok + added.NA + added.reuse;
    const left = book.progress().reduce((s, c) => s + c.todo, 0);
    const fatalErr = fatal as Error | null;
    const state: WorkerState = fatalErr ? 'failed' : drainRequested ? 'stopped' : 'done';
    const summary = `${state === 'done' ? 'done' : state === 'stopped' ? 'stopped' : 'FAILED'}: ${nAdded} rows added `
      + `(ok ${added.ok}, NA ${added.NA}, reuse ${added.reuse}), ${failures.count} failure(s) logged`
      + `${rep.completed.length ? `, ${rep.completed.length} row(s) completed from raw records at start` : ''}`
      + `${left ? `, ${left} left to do` : ''}, wall ${wallS.toFixed(1)} s`
      + `${fatalErr ? ` — ${fatalErr.message}` : ''}`;
    workerState = state;
    statusMessage = fatalErr ? fatalErr.message : null;
    await log.info(summary);
    await writeStatus(summary);
    return { exitCode: fatalErr ? 1 : 0, state, summary, added, failures: failures.count, wallS, stopReason };
  } catch (err) {
    const e = err as Error;
    const usage = e?.name === 'InputError' || e?.name === 'UsageError';
    await log.error(`run ${usage ? 'refused' : 'failed'}: ${usage ? e.message : e?.stack ?? String(err)}`).catch(() => undefined);
    const summary = `FAILED: ${e?.message ?? String(err)}; wall ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    if (status) {
      const s = status as WorkerStatus;
      await writeStatusAtomic(layout, { ...s, state: 'failed', message: e?.message ?? String(err), updatedAt: isoNow(), summary }).catch(() => undefined);
    }
    if (usage) throw err;
    // A server start refused for its context, every server gone, a disk error: a failed run with a
    // report, never a silent retry with other settings.
    return { exitCode: 1, state: 'failed', summary, added: { ok: 0, NA: 0, reuse: 0 }, failures: failures.count, wallS: (Date.now() - t0) / 1000,
      stopReason };
  } finally {
    if (statusTimer) clearInterval(statusTimer);
    if (cutTimer) clearTimeout(cutTimer);
    process.off('SIGTERM', onSigterm);
    process.off('SIGINT', onSigterm);
    await writerClose?.().catch(() => undefined);
    await failures.close().catch(() => undefined);
    await timing.close().catch(() => undefined);
    closing = true;
    await frames?.close().catch(() => undefined);
    await servers?.close().catch(() => undefined);
    await lock.release().catch(() => undefined);
    await log.close().catch(() => undefined);
  }
}
