// One worker per run root: `.fpsweep/worker.lock`, created with O_EXCL and holding pid, hostname and
// start time. A lock whose pid is not alive on this host is stale and taken over (with a message);
// a live one refuses the second run, naming the pid. A lock from another host is never taken over
// silently: the package may be on shared storage with a worker running there.
import { promises as fs, constants as fsc } from 'node:fs';
import * as os from 'node:os';
import { z } from 'zod';
import type { RunRoot } from './runRoot';
import { InputError } from '../errors';
import { parseBoundedJson } from '../io/boundedJson';

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

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readLock(layout: Pick<RunRoot, 'lockFile'>): Promise<LockInfo | null> {
  let text: string;
  try {
    text = await fs.readFile(layout.lockFile, 'utf8');
  } catch {
    return null;
  }
  try {
    return lockInfoSchema.parse(parseBoundedJson(text));
  } catch {
    // a lock cut short by a crash while it was being written: treated as stale
    return { pid: -1, hostname: os.hostname(), startedAt: 'unknown' };
  }
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

export async function acquireLock(layout: Pick<RunRoot, 'stateDir' | 'lockFile'>, runId?: string, onMessage?: (m: string) => void): Promise<HeldLock> {
  await fs.mkdir(layout.stateDir, { recursive: true });
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString(), runId };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await fs.open(layout.lockFile, fsc.O_CREAT | fsc.O_EXCL | fsc.O_WRONLY, 0o644);
      try {
        await fh.writeFile(JSON.stringify(info) + '\n');
        await fh.sync();
      } finally {
        await fh.close();
      }
      return {
        info,
        release: async () => {
          const now = await readLock(layout);
          if (now && now.pid === info.pid && now.startedAt === info.startedAt) await fs.rm(layout.lockFile, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await readLock(layout);
    if (!holder) continue; // released between our open and our read
    if (holder.hostname !== os.hostname() || pidAlive(holder.pid)) throw new LockHeldError(holder, layout.lockFile);
    onMessage?.(`taking over a stale lock: pid ${holder.pid} (started ${holder.startedAt}) is not running on this host`);
    // Rename first so two starters racing for the same stale lock cannot both delete-and-create.
    const aside = `${layout.lockFile}.stale-${process.pid}`;
    try {
      await fs.rename(layout.lockFile, aside);
      const moved = await fs.readFile(aside, 'utf8').catch(() => '');
      if (!moved.includes(`"pid":${holder.pid},`)) {
        // We moved a fresh lock another starter had just taken: put it back (link never clobbers).
        await fs.link(aside, layout.lockFile).catch(() => undefined);
      }
      await fs.rm(aside, { force: true });
    } catch {
      /* another starter moved it: try again */
    }
  }
  const holder = await readLock(layout);
  throw new LockHeldError(holder ?? { pid: -1, hostname: os.hostname(), startedAt: 'unknown' }, layout.lockFile);
}
