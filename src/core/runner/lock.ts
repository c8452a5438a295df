// One worker per run root: `.fpsweep/worker.lock`, holding pid, hostname and start time, written whole before it
// appears (a temporary file linked into place). A lock whose pid is not alive on this host (gone, or a zombie), or
// one torn by a crash of an older writer (empty, not a lock record), is stale and taken over (with a message);
// a live one refuses the second run, naming the pid. A lock from another host is never taken over
// silently: the package may be on shared storage with a worker running there.
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { RunRoot } from './runRoot';
import { InputError } from '../errors';
import { parseBoundedJson } from '../io/boundedJson';
import { ContainmentError, mkdirUnder, openFreshUnder, removeUnder, renameUnder } from '../containment/rootFs';

export const lockInfoSchema = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  startedAt: z.string(),
  runId: z.string().optional(),
});
export type LockInfo = z.infer<typeof lockInfoSchema>;

/** A second run while one is alive: exit status 2 (bad input: the package is busy). */
export class LockHeldError extends InputError {
  constructor(
    readonly holder: LockInfo,
    file: string,
  ) {
    super(
      `another fpsweep worker is running on this run root: pid ${holder.pid} on ${holder.hostname}, started ${holder.startedAt} (lock ${file}); ` +
        `use \`fpsweep status\` or \`fpsweep stop\``,
    );
    this.name = 'LockHeldError';
  }
}

/**
 * Whether `pid` is a running process. A zombie (killed, its parent has not reaped it yet) still answers signal 0
 * but will never release its lock: on Linux its /proc state `Z` counts as dead.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return processState(pid) !== 'Z';
}

/** The one-letter state of /proc/<pid>/stat (after the parenthesised name, which may hold spaces), or null. */
export function processState(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // not Linux, or gone
  }
  const m = /\) (\S)/.exec(stat.slice(stat.lastIndexOf(')')));
  return m ? m[1] : null;
}

/** The lock as it lies on disk: none, a holder, or torn (empty or not a lock: no holder can be found in it). */
type LockState = { kind: 'free' } | { kind: 'held'; info: LockInfo; text: string } | { kind: 'torn'; text: string };

/** What readLock reports for a torn lock: a holder that is not alive, so every reader sees the root free. */
const TORN_HOLDER: Omit<LockInfo, 'hostname'> = { pid: -1, startedAt: 'unknown' };

async function readLockState(file: string): Promise<LockState> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'free' };
    throw new InputError(`cannot read the lock ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); remove it if no worker runs`);
  }
  try {
    return { kind: 'held', info: lockInfoSchema.parse(parseBoundedJson(text)), text };
  } catch {
    return { kind: 'torn', text };
  }
}

export async function readLock(layout: Pick<RunRoot, 'lockFile'>): Promise<LockInfo | null> {
  const found = await readLockState(layout.lockFile).catch(() => ({ kind: 'free' }) as const);
  if (found.kind === 'free') return null;
  return found.kind === 'held' ? found.info : { ...TORN_HOLDER, hostname: os.hostname() };
}

/** The holder, when the lock is held by a live process (on this host; another host's lock counts as held). */
export async function liveLockHolder(layout: Pick<RunRoot, 'lockFile'>): Promise<LockInfo | null> {
  const info = await readLock(layout);
  if (!info) return null;
  if (info.hostname !== os.hostname()) return info;
  return pidAlive(info.pid) ? info : null;
}

export interface HeldLock {
  info: LockInfo;
  release(): Promise<void>;
}

/** `text` in a new file under `root` (never through a link), flushed to disk before anyone sees it as the lock. */
async function writeWhole(root: string, file: string, text: string): Promise<void> {
  const fh = await openFreshUnder(root, file);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const TEMP_LOCK = /\.(\d+)\.[0-9a-f]+\.tmp$/;

/** Temporary locks of starters that died before linking theirs (a crash between write and link). */
async function removeDeadTempLocks(root: string, lockFile: string): Promise<void> {
  const dir = path.dirname(lockFile);
  const prefix = path.basename(lockFile) + '.';
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const m = name.startsWith(prefix) ? TEMP_LOCK.exec(name) : null;
    if (m && !pidAlive(Number(m[1]))) await removeUnder(root, path.join(dir, name));
  }
}

/** Where a stale lock is moved before it is removed: this process's own name beside it (PackageLayout's lockAside). */
export const staleLockAside = (lockFile: string): string => `${lockFile}.stale-${process.pid}`;

/**
 * Moves the lock aside when it still holds `judged` (what was found stale). Renaming first means two starters
 * racing for the same stale lock cannot both delete-and-create; a fresh lock moved by mistake is put back (link
 * never clobbers).
 */
async function moveAsideIfUnchanged(root: string, lockFile: string, judged: string): Promise<void> {
  const aside = staleLockAside(lockFile);
  try {
    await renameUnder(root, lockFile, aside);
  } catch (err) {
    if (err instanceof ContainmentError) throw err; // a link planted as the lock: refused, never moved
    return; // another starter moved it: try again
  }
  const moved = await fs.readFile(aside, 'utf8').catch(() => null);
  if (moved !== judged) await fs.link(aside, lockFile).catch(() => undefined);
  await removeUnder(root, aside);
}

function staleMessage(file: string, found: Exclude<LockState, { kind: 'free' }>): string {
  if (found.kind === 'torn') {
    const what = found.text.trim() === '' ? 'empty' : 'not a lock record';
    return `taking over a torn lock ${file} (${what}: cut short by a crash; no holder can be found in it)`;
  }
  return `taking over a stale lock: pid ${found.info.pid} (started ${found.info.startedAt}) is not running on this host`;
}

/**
 * Takes the root's lock. The record is written whole to a temporary file first and then linked into place:
 * link fails with EEXIST atomically when the lock exists, and the lock is never seen without its pid.
 */
export async function acquireLock(layout: Pick<RunRoot, 'root' | 'stateDir' | 'lockFile'>, runId?: string, onMessage?: (m: string) => void): Promise<HeldLock> {
  // Under the root and never through a link (containment): a `.fpsweep` planted as a link is refused, exit 2.
  await mkdirUnder(layout.root, layout.stateDir);
  await removeDeadTempLocks(layout.root, layout.lockFile);
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString(), runId };
  const temp = `${layout.lockFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeWhole(layout.root, temp, JSON.stringify(info) + '\n');
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.link(temp, layout.lockFile);
        return {
          info,
          release: async () => {
            const now = await readLock(layout);
            if (now && now.pid === info.pid && now.startedAt === info.startedAt) await removeUnder(layout.root, layout.lockFile);
          },
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const found = await readLockState(layout.lockFile);
      if (found.kind === 'free') continue; // released between our link and our read
      if (found.kind === 'held' && (found.info.hostname !== os.hostname() || pidAlive(found.info.pid))) {
        throw new LockHeldError(found.info, layout.lockFile);
      }
      onMessage?.(staleMessage(layout.lockFile, found));
      await moveAsideIfUnchanged(layout.root, layout.lockFile, found.text);
    }
  } finally {
    await removeUnder(layout.root, temp);
  }
  const holder = await readLock(layout);
  throw new LockHeldError(holder ?? { ...TORN_HOLDER, hostname: os.hostname() }, layout.lockFile);
}
