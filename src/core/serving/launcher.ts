// vLLM servers for any run type: launch the groups it asks for (each its GPUs, port and `serve …` line: the run
// type's, e.g. Frames × Pixels' one per GPU in protocols/fp/serving/launchServers.ts), wait for /health, record the
// exact launch line, watch the servers, restart a dead one (bounded), and tell the runner about every state change.
import { isUserError } from '../errors';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { registerSecret } from '../security/secrets';
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { ResultPromise } from 'execa';
import type { RunRoot } from '../runner/runRoot';
import { appendLineUnder, mkdirUnderSync, openAppendUnderSync } from '../containment/rootFs';
import { checkHealth } from './health';
import { fileSize, lastLines, readTail } from './logTail';
import { stopLeftoverServers, writeServerRecords } from './leftovers';
import { isKvCacheRefusal, isOutOfMemory } from './vllmMessages';

// execa 9 is ESM-only: a dynamic import loads it natively under tsx (mocha) and in the esbuild bundle.
const loadExeca = () => import('execa').then((m) => m.execa);

import type { ServerState } from './serverState';
import { ContextLengthError } from './contextLength';

export type { ServerState } from './serverState';

export interface ServerStateEvent {
  /** "gpu0" for a launched server, the URL for an --endpoints one. */
  id: string;
  gpu: number | null;
  url: string;
  state: ServerState;
  previous: ServerState;
  /** `down` for the rest of the run (a launched server whose restarts are used up, or stopped). */
  final: boolean;
  /** Why, in words a user can act on. */
  message: string;
  /** The server's log shows a CUDA out-of-memory error for this incarnation. */
  oom: boolean;
  restarts: number;
  at: string;
}

export interface ServerHandle {
  readonly id: string;
  /** The first (for one-GPU servers, the only) GPU; null for --endpoints. */
  readonly gpu: number | null;
  /** Every GPU the server holds (a tensor-parallel group); [] for --endpoints. */
  readonly gpus: readonly number[];
  /** Base URL, e.g. http://127.0.0.1:8011 (the client adds /v1/...). */
  readonly url: string;
  readonly apiKey: string | null;
  readonly state: ServerState;
  readonly restarts: number;
  readonly pid: number | null;
  readonly logFile: string | null;
  /** The launch line as written to logs/launch_params.txt (key redacted); null for --endpoints. */
  readonly launchLine: string | null;
  /** Aborted when this incarnation stops being up: pass it to client.chat to cut in-flight work. */
  readonly upSignal: AbortSignal;
}

// The server cannot hold the protocol's context: the run must stop; lowering it is never an option.
export { ContextLengthError } from './contextLength';

export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LaunchError';
  }
}

export interface MonitorOptions {
  /** Health poll period. */
  intervalMs?: number;
  /** Consecutive failed polls before a live process is declared hung. */
  failThreshold?: number;
  /** Timeout of one /health poll. */
  healthTimeoutMs?: number;
  /** Restarts per server over the whole run. */
  maxRestarts?: number;
  /** Grace between SIGTERM and SIGKILL when we stop a server. */
  killGraceMs?: number;
}

/** One server of a group launch: its GPUs (CUDA_VISIBLE_DEVICES), port, `serve …` arguments and log file. */
export interface ServerSpec {
  id: string;
  gpus: readonly number[];
  port: number;
  /** Everything after the binary, starting with 'serve' (the launcher adds nothing). */
  args: readonly string[];
  logFile: string;
}

/** Where a launch writes its bookkeeping: the launch lines, the server logs' folder, servers.json. */
export interface LaunchPlaces {
  /** The run's root: every log and state file below is written through the containment module under it. */
  root: string;
  logsDir: string;
  launchParams: string;
  /** servers.json lives here (leftovers.ts), so a later run can stop what a killed one left. */
  stateDir: string;
}

export interface GroupLaunchOptions extends MonitorOptions {
  servers: readonly ServerSpec[];
  places: LaunchPlaces;
  vllmBin?: string;
  env?: Record<string, string | undefined>;
  startTimeoutMs?: number;
  /** Folders vLLM needs to exist before it starts (e.g. --allowed-local-media-path). */
  mkdirs?: readonly string[];
  /** The context every server must hold (--max-model-len), for the refusal message. */
  contextTokens: number;
  /** What to tell the user when vLLM says that context does not fit (it is never lowered). */
  contextAdvice?: string;
  /** Appended to an out-of-memory restart message (what to lower). */
  oomAdvice?: string;
  log?: (line: string) => void;
  /** Aborted to cut the launch (a run stopped while its servers load): the servers are stopped and the launch throws. */
  signal?: AbortSignal;
}

export interface Fleet extends EventEmitter {
  readonly handles: readonly ServerHandle[];
  on(event: 'state', listener: (e: ServerStateEvent) => void): this;
  /** Stop watching and stop every server this fleet launched (never servers it was only given). */
  stop(): Promise<void>;
}

// A busy server can be slow to answer /health (the API process also loads the images), so a live one
// is declared hung only after about a minute of silence; a dead process is noticed at once.
const DEFAULTS = { intervalMs: 10_000, failThreshold: 4, healthTimeoutMs: 10_000, maxRestarts: 3, killGraceMs: 10_000 };

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.setTimeout(1_000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

abstract class BaseServer implements ServerHandle {
  state: ServerState = 'starting';
  restarts = 0;
  failures = 0;
  protected upController = new AbortController();

  readonly gpu: number | null;

  constructor(
    readonly id: string,
    readonly gpus: readonly number[],
    readonly url: string,
    readonly apiKey: string | null,
    protected readonly fleet: FleetImpl,
  ) {
    this.gpu = gpus.length ? gpus[0] : null;
  }

  get pid(): number | null {
    return null;
  }
  get logFile(): string | null {
    return null;
  }
  get launchLine(): string | null {
    return null;
  }
  get upSignal(): AbortSignal {
    return this.upController.signal;
  }

  /** A `down` of this server is for good: a launched one is not down unless it gave up (or was stopped). */
  protected readonly downIsFinal: boolean = false;

  setState(state: ServerState, message: string, oom = false): void {
    const previous = this.state;
    if (previous === 'up' && state !== 'up') this.upController.abort(new Error(`${this.id} ${state}: ${message}`));
    if (state === 'up' && previous !== 'up') this.upController = new AbortController();
    this.state = state;
    this.fleet.emitState({
      id: this.id,
      gpu: this.gpu,
      url: this.url,
      state,
      previous,
      final: state === 'down' && this.downIsFinal,
      message,
      oom,
      restarts: this.restarts,
      at: new Date().toISOString(),
    });
  }

  abstract poll(): Promise<void>;
  abstract stop(): Promise<void>;
}

type ServerOptions = Required<Pick<GroupLaunchOptions, 'startTimeoutMs' | 'contextAdvice' | 'oomAdvice'>> & GroupLaunchOptions;

class LaunchedServer extends BaseServer {
  protected override readonly downIsFinal = true;
  private child: ResultPromise | null = null;
  private exited: { code: number | null; signal: string | null; spawnError: string | null } | null = null;
  private logOffset = 0;
  private busy = false; // a restart is under way: polls stand aside
  private stopping = false;
  readonly args: readonly string[];
  private readonly line: string;
  private readonly log: string;
  private readonly devices: string;

  constructor(
    spec: ServerSpec,
    key: string,
    private readonly bin: string,
    private readonly opts: ServerOptions,
    fleet: FleetImpl,
  ) {
    super(spec.id, spec.gpus, `http://127.0.0.1:${spec.port}`, key, fleet);
    this.args = spec.args;
    this.log = spec.logFile;
    this.devices = spec.gpus.join(',');
    // The key travels in VLLM_API_KEY (vLLM reads it when --api-key is absent), so it is in no
    // command line, no `ps` listing and no log; the recorded line says where it went.
    // vLLM's own settings we pass in the environment (VLLM_*, the key aside, and OMP_NUM_THREADS, its torch threads)
    // belong to the line: it must rerun the server.
    const vllmEnv = Object.entries(opts.env ?? {})
      .filter(([k, v]) => (k.startsWith('VLLM_') || k === 'OMP_NUM_THREADS') && k !== 'VLLM_API_KEY' && v !== undefined)
      .map(([k, v]) => `${k}=${shellQuote(v!)} `)
      .join('');
    this.line = `CUDA_VISIBLE_DEVICES=${this.devices} VLLM_API_KEY=<redacted> ${vllmEnv}${[bin, ...this.args].map(shellQuote).join(' ')}`;
  }

  override get pid(): number | null {
    return this.child?.pid ?? null;
  }
  override get logFile(): string {
    return this.log;
  }
  override get launchLine(): string {
    return this.line;
  }

  private async spawn(what: string): Promise<void> {
    appendLineUnder(this.opts.places.root, this.opts.places.launchParams, `# ${new Date().toISOString()} ${this.id} ${what}\n${this.line}\n`);
    this.logOffset = fileSize(this.log);
    // The server's log: made and checked under the root (no link on its path, none at it) before execa opens it to append.
    fs.closeSync(openAppendUnderSync(this.opts.places.root, this.log));
    this.exited = null;
    const execa = await loadExeca();
    const child = execa(this.bin, [...this.args], {
      // FPSWEEP_STANDIN_OWNER_PID only matters to the stand-in (it exits when we are gone); vLLM ignores it.
      env: { ...this.opts.env, CUDA_VISIBLE_DEVICES: this.devices, VLLM_API_KEY: this.apiKey ?? '', FPSWEEP_STANDIN_OWNER_PID: String(process.pid) },
      stdin: 'ignore',
      stdout: { file: this.log, append: true },
      stderr: { file: this.log, append: true },
      reject: false,
      cleanup: true,
      forceKillAfterDelay: this.opts.killGraceMs ?? DEFAULTS.killGraceMs,
    });
    this.child = child;
    this.fleet.recordServers();
    void child.then((r) => {
      if (this.child !== child) return;
      const spawnError =
        r.exitCode === undefined && r.signal === undefined && r.failed ? ((r as { code?: string }).code ?? r.shortMessage ?? 'spawn failed') : null;
      this.exited = { code: r.exitCode ?? null, signal: r.signal ?? null, spawnError };
      // A death while up is noticed at once, not at the next poll.
      if (this.state === 'up' && !this.busy && !this.stopping) void this.recover(`process exited (${this.exitText()})`);
    });
  }

  private exitText(): string {
    if (!this.exited) return 'running';
    if (this.exited.spawnError === 'ENOENT') return `\`${this.bin}\` was not found: install vLLM 0.11 or point VLLM_BIN at it`;
    if (this.exited.spawnError) return `could not start \`${this.bin}\`: ${this.exited.spawnError}`;
    return this.exited.signal ? `signal ${this.exited.signal}` : `exit code ${this.exited.code}`;
  }

  private tail(): string {
    return readTail(this.log, this.logOffset);
  }

  /** Starts (or restarts) and waits for /health; throws ContextLengthError / LaunchError. */
  async startAndWait(what: string): Promise<void> {
    if (this.stopping) throw new LaunchError(`${this.id}: stopped while starting`);
    if (await portInUse(Number(new URL(this.url).port))) {
      throw new LaunchError(
        `${this.id}: port ${new URL(this.url).port} on 127.0.0.1 is already in use (a server left from an earlier run?). ` +
          'Stop it (see `ss -ltnp`), or use it with --endpoints, then run again.',
      );
    }
    await this.spawn(what);
    const deadline = Date.now() + this.opts.startTimeoutMs;
    let lastDetail = '';
    while (Date.now() < deadline) {
      if (this.stopping) {
        await this.kill(); // stop() may have run before this incarnation was spawned
        throw new LaunchError(`${this.id}: stopped while starting`);
      }
      if (this.exited) {
        const tail = this.tail();
        if (isKvCacheRefusal(tail)) throw new ContextLengthError(this.contextMessage(tail), { server: this.id, needed: this.opts.contextTokens, held: null });
        throw new LaunchError(`${this.id}: \`${this.bin} serve\` exited during start (${this.exitText()}); last lines of ${this.log}:\n${lastLines(tail, 15)}`);
      }
      const h = await checkHealth(this.url, this.opts.healthTimeoutMs ?? DEFAULTS.healthTimeoutMs);
      if (h.ok) return;
      lastDetail = h.detail;
      await sleep(Math.min(1_000, Math.max(100, (this.opts.intervalMs ?? DEFAULTS.intervalMs) / 5)));
    }
    await this.kill();
    throw new LaunchError(
      `${this.id}: no healthy /health at ${this.url} within ${Math.round(this.opts.startTimeoutMs / 1000)} s (last: ${lastDetail}); ` +
        `last lines of ${this.log}:\n${lastLines(this.tail(), 15)}`,
    );
  }

  private contextMessage(tail: string): string {
    const line = tail.split('\n').find((l) => isKvCacheRefusal(l)) ?? '';
    return (
      `${this.id}: vLLM cannot serve the protocol's context of ${this.opts.contextTokens} tokens on this GPU:\n  ${line.trim()}\n` +
      `${this.opts.contextAdvice} Full log: ${this.log}`
    );
  }

  private async kill(): Promise<void> {
    const c = this.child;
    if (!c || this.exited) return;
    c.kill('SIGTERM');
    await c.catch(() => undefined);
  }

  override async poll(): Promise<void> {
    if (this.state !== 'up' || this.busy || this.stopping) return;
    if (this.exited) return this.recover(`process exited (${this.exitText()})`);
    const h = await checkHealth(this.url, this.opts.healthTimeoutMs ?? DEFAULTS.healthTimeoutMs);
    if (this.state !== 'up' || this.busy || this.stopping) return;
    if (h.ok) {
      this.failures = 0;
      return;
    }
    this.failures++;
    const threshold = this.opts.failThreshold ?? DEFAULTS.failThreshold;
    if (this.failures >= threshold) await this.recover(`/health failed ${this.failures} times in a row (last: ${h.detail})`);
  }

  private async recover(reason: string): Promise<void> {
    if (this.busy || this.stopping) return;
    this.busy = true;
    try {
      const maxRestarts = this.opts.maxRestarts ?? DEFAULTS.maxRestarts;
      let why = reason;
      for (;;) {
        const oom = isOutOfMemory(this.tail());
        const oomText = oom ? ` — CUDA out of memory (see ${this.log})${this.opts.oomAdvice}` : '';
        // The state changes before the (possibly slow) kill, so in-flight work is re-queued at once.
        if (this.restarts >= maxRestarts) {
          this.setState('down', `${why}${oomText}; restart budget (${maxRestarts}) used up, the server stays down`, oom);
          await this.kill();
          return;
        }
        this.restarts++;
        this.setState('restarting', `${why}${oomText}; restart ${this.restarts}/${maxRestarts}`, oom);
        await this.kill();
        if (this.stopping) return;
        try {
          await this.startAndWait(`restart ${this.restarts}`);
          this.failures = 0;
          this.setState('up', `restarted (${this.restarts}/${maxRestarts})`);
          return;
        } catch (err) {
          if (this.stopping) return;
          if (err instanceof ContextLengthError) {
            this.setState('down', err.message);
            return;
          }
          why = (err as Error).message;
        }
      }
    } finally {
      this.busy = false;
    }
  }

  override async stop(): Promise<void> {
    this.stopping = true;
    await this.kill();
    if (this.state !== 'down') this.setState('down', 'stopped');
  }
}

/** A server we were given (--endpoints): watched, never started, restarted or stopped by us. */
class RemoteServer extends BaseServer {
  constructor(
    url: string,
    apiKey: string | null,
    private readonly opts: MonitorOptions,
    fleet: FleetImpl,
  ) {
    super(url, [], url.replace(/\/+$/, '').replace(/\/v1$/, ''), apiKey, fleet);
  }

  override async poll(): Promise<void> {
    const h = await checkHealth(this.url, this.opts.healthTimeoutMs ?? DEFAULTS.healthTimeoutMs);
    if (h.ok) {
      this.failures = 0;
      if (this.state !== 'up') this.setState('up', this.state === 'starting' ? 'answering /health' : 'answering /health again');
      return;
    }
    this.failures++;
    const threshold = this.opts.failThreshold ?? DEFAULTS.failThreshold;
    if (this.state === 'starting' || (this.state === 'up' && this.failures >= threshold)) {
      this.setState('down', `/health failed ${this.failures} time(s) (last: ${h.detail}); marked down until it answers /health again`);
    }
  }

  override async stop(): Promise<void> {
    /* not ours to stop */
  }
}

class FleetImpl extends EventEmitter implements Fleet {
  servers: BaseServer[] = [];
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly logSink?: (line: string) => void,
    private readonly layout?: Pick<RunRoot, 'root' | 'stateDir'>,
  ) {
    super();
  }

  /** Keeps .fpsweep/servers.json current so a run after a kill -9 can stop what this one started. */
  recordServers(): void {
    if (!this.layout) return;
    const recs = this.servers
      .filter((s) => s.pid !== null && s.state !== 'down')
      .map((s) => ({ id: s.id, pid: s.pid!, port: Number(new URL(s.url).port), startedAt: new Date().toISOString() }));
    writeServerRecords(this.layout, recs);
  }

  get handles(): readonly ServerHandle[] {
    return this.servers;
  }

  emitState(e: ServerStateEvent): void {
    this.logSink?.(`server ${e.id} ${e.previous} → ${e.state}: ${e.message}`);
    this.emit('state', e);
  }

  startMonitor(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      void Promise.all(this.servers.map((s) => s.poll().catch(() => undefined))).finally(() => {
        this.polling = false;
      });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.servers.map((s) => s.stop()));
    if (this.layout) writeServerRecords(this.layout, []);
  }
}

/**
 * Launches the given servers (each on its GPU group, CUDA_VISIBLE_DEVICES = the group) and resolves when
 * all answer /health; one failure stops the others and throws (ContextLengthError | LaunchError).
 */
export async function launchServerGroups(options: GroupLaunchOptions): Promise<Fleet> {
  // `??`, not a spread of defaults: an option passed as undefined must not erase its default.
  const opts: ServerOptions = {
    ...options,
    startTimeoutMs: options.startTimeoutMs ?? 20 * 60_000,
    contextAdvice: options.contextAdvice ?? 'The context is fixed by the protocol and is never lowered.',
    oomAdvice: options.oomAdvice ?? '',
  };
  const bin = opts.vllmBin ?? process.env.VLLM_BIN ?? 'vllm';
  mkdirUnderSync(opts.places.root, opts.places.logsDir);
  // Media folders the servers read (a frame store, a media root): the user's paths, each its own root.
  for (const d of opts.mkdirs ?? []) mkdirUnderSync(d, d);
  const stateDir = { root: opts.places.root, stateDir: opts.places.stateDir };
  for (const line of await stopLeftoverServers(stateDir, opts.killGraceMs ?? DEFAULTS.killGraceMs)) opts.log?.(line);
  const fleet = new FleetImpl(opts.log, stateDir);
  for (const spec of opts.servers) {
    const key = randomBytes(24).toString('base64url');
    registerSecret(key, 'vllm-api-key');
    fleet.servers.push(new LaunchedServer(spec, key, bin, opts, fleet));
  }
  const cut = () => void fleet.stop();
  options.signal?.addEventListener('abort', cut, { once: true });
  if (options.signal?.aborted) cut();
  const starts = fleet.servers.map(async (s) => {
    await (s as LaunchedServer).startAndWait('start');
    s.setState('up', 'answering /health');
  });
  try {
    await Promise.all(starts);
    options.signal?.throwIfAborted(); // cut after the last server came up
  } catch (first) {
    // One failure ends the launch: the others are stopped now, not after their own (long) loads.
    await fleet.stop();
    if (options.signal?.aborted) throw new LaunchError(`launch cut: ${(options.signal.reason as Error)?.message ?? 'aborted'}`);
    const failed = (await Promise.allSettled(starts))
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => r.reason as Error)
      .filter((e) => e === first || !/stopped while starting/.test(e.message));
    const ctx = failed.find((e) => e instanceof ContextLengthError);
    if (ctx) throw ctx;
    // A refusal of the user's input (a link planted at a server's log, issue 42): exit 2 with its message, as is.
    const refused = failed.find((e) => isUserError(e));
    if (refused) throw refused;
    throw new LaunchError(failed.map((e) => e.message).join('\n\n'));
  } finally {
    options.signal?.removeEventListener('abort', cut);
  }
  fleet.startMonitor(opts.intervalMs ?? DEFAULTS.intervalMs);
  return fleet;
}

/** `--endpoints URL,…`: servers running elsewhere; the key comes from FPSWEEP_API_KEY (or none). */
export async function useEndpoints(
  urls: readonly string[],
  options: MonitorOptions & { apiKey?: string | null; log?: (line: string) => void } = {},
): Promise<Fleet> {
  const apiKey = options.apiKey !== undefined ? options.apiKey : process.env.FPSWEEP_API_KEY || null;
  registerSecret(apiKey, 'api-key');
  const fleet = new FleetImpl(options.log);
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw new LaunchError(`--endpoints: '${u}' is not a URL (expected e.g. http://10.0.0.5:8011)`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LaunchError(`--endpoints: '${u}' must be http(s)`);
    fleet.servers.push(new RemoteServer(u, apiKey, options, fleet));
  }
  await Promise.all(fleet.servers.map((s) => s.poll()));
  if (!fleet.servers.some((s) => s.state === 'up')) {
    throw new LaunchError(`--endpoints: none of ${urls.join(', ')} answers GET /health`);
  }
  fleet.startMonitor(options.intervalMs ?? DEFAULTS.intervalMs);
  return fleet;
}
