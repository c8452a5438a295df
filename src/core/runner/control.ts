// Worker control for the CLI and the extension: start a detached worker, ask it to stop, see if it is
// alive. The worker is its own session (detached), its output goes to logs/runner.log, and the parent
// does not wait for it — it survives the shell, a closed VS Code window and a dropped SSH connection.
import { spawn } from 'node:child_process';
import { existsSync, closeSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sizeThreadPool } from './threadPool';
import { stopFile, type RunRoot } from './runRoot';
import { InputError } from '../errors';
import { liveLockHolder, LockHeldError, readLock } from './lock';
import { openAppendUnderSync } from '../containment/rootFs';
import { writeFileAtomic } from './atomicFile';

export { stopFile };

function findRoot(from: string): string | null {
  let dir = from;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The tsx loader of this checkout, by URL (a worker's cwd is its run root: no bare specifier), or null. */
function tsxLoader(): string | null {
  const root = findRoot(__dirname);
  const tsx = root ? path.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs') : null;
  return tsx && existsSync(tsx) ? pathToFileURL(tsx).href : null;
}

/**
 * How to start the worker: dist/worker.js next to the CLI bundle, or the TypeScript entry under tsx. `entry`: a
 * worker entry of its own (a file that calls worker/dispatch.ts's runWorker with its registry: a plug-in's, a test's).
 */
export function workerCommand(entry?: string): { command: string; args: string[] } {
  if (entry) {
    if (!entry.endsWith('.ts')) return { command: process.execPath, args: [entry] };
    const loader = tsxLoader();
    if (!loader) throw new Error(`cannot run ${entry}: no tsx in this checkout`);
    return { command: process.execPath, args: ['--import', loader, entry] };
  }
  const beside = path.join(__dirname, 'worker.js'); // bundled: dist/cli.js and dist/worker.js side by side
  if (existsSync(beside)) return { command: process.execPath, args: [beside] };
  const root = findRoot(__dirname);
  const dist = root ? path.join(root, 'dist', 'worker.js') : null;
  const src = root ? path.join(root, 'src', 'worker', 'main.ts') : null;
  // From sources (tests, `tsx src/cli/main.ts`), run the sources so the worker is the code under test.
  const loader = tsxLoader();
  if (src && loader && existsSync(src) && __filename.endsWith('.ts')) return { command: process.execPath, args: ['--import', loader, src] };
  if (dist && existsSync(dist)) return { command: process.execPath, args: [dist] };
  throw new Error('cannot find the worker (dist/worker.js): run `npm run build` first');
}

export interface DetachedWorker {
  pid: number;
  logFile: string;
  /** Its exit code, once it has exited (seen only while this process lives: the worker outlives its starter). */
  exited: Promise<number | null>;
}

/** How long startDetachedWorker waits for the new worker to take the package lock. */
export const WORKER_START_TIMEOUT_MS = 60_000;

/** The worker arguments that run `job` of run type `protocol` (worker/dispatch.ts reads them back). */
export function workerJobArgs(protocol: string, job: unknown): string[] {
  return ['--protocol', protocol, '--job', JSON.stringify(job)];
}

/** What a detached worker runs and where: a run type's job, the run root whose lock it must take, its folder. */
export interface DetachedJob {
  /** The run type's id (the registry's) and its job, checked again by the worker against the run type's schema. */
  protocol: string;
  job: unknown;
  /** The worker's log is root.runnerLog; it must take root.lockFile. */
  root: Pick<RunRoot, 'root' | 'lockFile' | 'runnerLog'>;
  /** For the error when the worker exits before taking it, e.g. 'package lock'. */
  lockName: string;
  cwd: string;
  /** The worker entry to run (workerCommand's `entry`); the product's worker when absent. */
  entry?: string;
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
}

/** Spawns the worker in its own session (stdio → logFile) and returns once it holds `lock` (see above). */
export async function spawnDetached(j: DetachedJob): Promise<DetachedWorker> {
  const { command, args } = workerCommand(j.entry);
  const logFile = j.root.runnerLog;
  const logStart = await fs.stat(logFile).then(
    (st) => st.size,
    () => 0,
  );
  const fd = openAppendUnderSync(j.root.root, logFile); // its folder made; never through a link (issue 33)
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(command, [...args, ...workerJobArgs(j.protocol, j.job)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      // Sized before the worker starts: a loader (tsx in a source checkout) may start libuv's pool first.
      env: sizeThreadPool({ ...(j.env ?? process.env) }),
      cwd: j.cwd,
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start the worker (${command} ${args.join(' ')})`);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + (j.startTimeoutMs ?? WORKER_START_TIMEOUT_MS);
    while (Date.now() < deadline) {
      if ((await readLock(j.root))?.pid === pid) break;
      const code = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(r, 50, undefined))]);
      if (code === undefined) continue;
      if (code === 0) break; // a run with nothing to do can take and release the lock between two looks
      // Another worker took the lock between our look and this one's start (two `run --detach` at once): the root is
      // busy, exit 2 naming the holder, as when the look had seen it.
      const holder = await liveLockHolder(j.root);
      if (holder && holder.pid !== pid) throw new LockHeldError(holder, j.root.lockFile);
      const said = await fs.readFile(logFile, 'utf8').then(
        (t) => t.slice(logStart).trim(),
        () => '',
      );
      const why =
        `the worker (pid ${pid}) exited with code ${code} before taking the ${j.lockName}` + `${said ? `: ${said.split('\n').slice(-5).join(' | ')}` : ''}`;
      // Its exit 2 is the user's input refused (errors.ts), so ours is too; anything else is a failure.
      throw code === 2 ? new InputError(why) : new Error(why);
    }
  } finally {
    child.unref();
  }
  return { pid, logFile, exited };
}

export async function isWorkerAlive(layout: Pick<RunRoot, 'lockFile'>): Promise<boolean> {
  return (await liveLockHolder(layout)) !== null;
}

export interface StopRequest {
  /** The worker asked to stop, or null when none is running. */
  pid: number | null;
  signalled: boolean;
}

/**
 * Asks the worker to drain: writes the stop file (seen within a second, also across hosts on shared
 * storage) and sends SIGTERM when the worker runs on this host. It finishes in-flight requests, writes
 * their rows, releases the lock and exits.
 */
export async function requestStop(layout: Pick<RunRoot, 'root' | 'lockFile' | 'stateDir'>): Promise<StopRequest> {
  const holder = await liveLockHolder(layout);
  if (!holder) return { pid: null, signalled: false };
  await writeFileAtomic(layout.root, stopFile(layout), `${new Date().toISOString()} stop requested by pid ${process.pid}\n`);
  let signalled = false;
  if (holder.hostname === os.hostname()) {
    try {
      process.kill(holder.pid, 'SIGTERM');
      signalled = true;
    } catch {
      /* it exited meanwhile */
    }
  }
  return { pid: holder.pid, signalled };
}

/** Resolves true when no worker holds the lock any more, false at the timeout (every caller names one). */
export async function waitForWorkerExit(layout: Pick<RunRoot, 'lockFile'>, timeoutMs: number, pollMs = 500): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (!(await liveLockHolder(layout))) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export { readLock };
