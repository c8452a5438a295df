// One run of any run type, from the engine's side: it owns the lock, stop requests (SIGTERM, SIGINT, the stop
// file, an in-process signal), the status tick, the run's stop reason, and the release at the end. A run type
// supplies `run(session)`: what to do, and what its status says. Order:
//   lock (exit 2 when another worker holds it) → stop file cleared → signals attached → run(session), with a
//   tick each second (stop file, the run's tick hooks, the status write) → the run's cleanups in reverse order
//   → signals detached → lock released.
// What a stop request means is the run type's policy:
//   - 'drain': no new request; the in-flight ones finish and are written (Frames × Pixels: rows are kept one by one);
//   - 'fail-closed': in-flight work is cut at once and the run ends failed (AVTime: a stage's artifacts are
//     whole or absent, so a stopped stage is resumed or restarted, never patched).
import { DrainControl, type SignalHost } from './drainControl';
import { acquireLock, type HeldLock } from './lock';
import { RunStopper, STOP_GRACE_MS } from './runStopper';
import { stopFile, type RunRoot } from './runRoot';
import { StatusReporter } from './statusReporter';
import type { StatusSchema } from './statusFile';
import { removeUnder } from '../containment/rootFs';

export type StopPolicy = 'drain' | 'fail-closed';

/** Where the session's own lines go (the run's log). */
export interface SessionLog {
  info(line: string): unknown;
  warn(line: string): unknown;
  error(line: string): unknown;
}

/** Timestamped lines on stdout: a detached worker's stdout is its runner.log; in the foreground, the terminal. */
export const stdoutSessionLog: SessionLog = {
  info: (l) => process.stdout.write(`${new Date().toISOString()} ${l}\n`),
  warn: (l) => process.stdout.write(`${new Date().toISOString()} WARN ${l}\n`),
  error: (l) => process.stdout.write(`${new Date().toISOString()} ERROR ${l}\n`),
};

export interface RunSessionOptions {
  root: RunRoot;
  runId: string;
  policy: StopPolicy;
  log: SessionLog;
  /** Aborts to ask for a stop from inside the process (tests, the extension host). */
  stopSignal?: AbortSignal;
  /** Where SIGTERM/SIGINT are listened for (default: this process). */
  signals?: SignalHost;
  /** The status tick (default 1 s). */
  tickMs?: number;
  /** After a stop by reason, how long in-flight requests have before they are cut (drain policy). */
  graceMs?: number;
}

const POLICY_WORDS: Record<StopPolicy, string> = {
  drain: 'draining — no new requests; in-flight ones finish and are written',
  'fail-closed': 'failing closed — in-flight work is cut now; continue the run with --resume',
};

export class RunSession {
  readonly drain: DrainControl;
  readonly stopper: RunStopper;
  private readonly ticks: (() => void)[] = [];
  private readonly cleanups: (() => unknown)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private reporter: StatusReporter<unknown> | null = null;
  private detachSignals: () => void = () => undefined;
  private closed = false;

  private constructor(
    readonly options: RunSessionOptions,
    private readonly held: HeldLock,
  ) {
    const { log } = options;
    this.drain = new DrainControl((m) => void log.info(m), POLICY_WORDS[options.policy]);
    this.stopper = new RunStopper(this.drain, (m) => void log.error(m), options.graceMs ?? STOP_GRACE_MS);
    if (options.policy === 'fail-closed') this.drain.onDrain((why) => this.stopper.cutNow(`stopped (${why})`));
  }

  /** Takes the root's lock (LockHeldError when a live worker holds it) and starts listening for stop requests. */
  static async open(options: RunSessionOptions): Promise<RunSession> {
    const held = await acquireLock(options.root, options.runId, (m) => void options.log.warn(m));
    const session = new RunSession(options, held);
    try {
      await removeUnder(options.root.root, stopFile(options.root));
    } catch (err) {
      await held.release();
      throw err;
    }
    session.detachSignals = session.drain.attach(options.signals ?? process, options.stopSignal, stopFile(options.root));
    // The stop file is looked for from the start, status file or not (a stop written from another host).
    session.startTicking();
    return session;
  }

  get root(): RunRoot {
    return this.options.root;
  }

  get runId(): string {
    return this.options.runId;
  }

  /** Why a stop was asked for (the first request), or null. */
  get stopRequested(): string | null {
    return this.drain.requested;
  }

  /** Aborted when in-flight work must end: at once on a stop under 'fail-closed', after the grace of a stop by reason. */
  get cutSignal(): AbortSignal {
    return this.stopper.cutSignal;
  }

  /**
   * The run's status file, written by `make` on each tick from now on (and whenever the run calls write()).
   * One per session: the status file is the session's.
   */
  status<S>(schema: StatusSchema<S>, make: (summary: string | null) => S, onStatus?: (s: S) => void): StatusReporter<S> {
    if (this.reporter) throw new Error('a run session has one status file');
    const reporter = new StatusReporter(this.root.root, this.root.statusFile, schema, make, onStatus);
    this.reporter = reporter as StatusReporter<unknown>;
    this.startTicking();
    return reporter;
  }

  /** `fn` runs on every tick (health, metrics), before the status write. */
  onTick(fn: () => void): void {
    this.ticks.push(fn);
    this.startTicking();
  }

  /** `fn` runs at close, before the lock is released; cleanups run in reverse order, each one's error logged and passed over. */
  defer(fn: () => unknown): void {
    this.cleanups.push(fn);
  }

  private startTicking(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 1000);
  }

  private tick(): void {
    this.drain.checkStopFile(stopFile(this.root));
    for (const t of this.ticks) t();
    this.reporter?.write().catch((err) => void this.options.log.error(`status file: ${(err as Error).message}`));
  }

  /**
   * Stops the tick, waits for a status write under way (a tick's write must not land after the run returned: the
   * run's files are then still changing), runs the cleanups, stops listening for signals and releases the lock.
   * Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reporter?.settled();
    this.stopper.dispose();
    for (const fn of this.cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        await Promise.resolve(this.options.log.warn(`cleanup: ${(err as Error)?.message ?? String(err)}`)).catch(() => undefined);
      }
    }
    this.detachSignals();
    await this.held.release();
  }
}

/** Opens a session on the root, runs `run` in it, and closes it whatever happens. */
export async function withRunSession<T>(options: RunSessionOptions, run: (session: RunSession) => Promise<T>): Promise<T> {
  const session = await RunSession.open(options);
  try {
    return await run(session);
  } finally {
    await session.close();
  }
}
