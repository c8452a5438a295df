// A child that starts children of its own (AVCut: python, then ffmpeg and its model workers) runs as a process group
// of its own, so that a stop, our exit or a later run reaches all of it, not only its first process. Across a
// worker's death a group is named by its leader's pid and the leader's start time (/proc/<pid>/stat, field 22): a pid
// alone may since belong to someone else. Linux's /proc is read where there is one; elsewhere only signals are used.
import { promises as fs } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The process's start time in clock ticks since boot (a string: it is compared, never computed), or null when no such process is running (or no /proc). */
export async function processStartTicks(pid: number): Promise<string | null> {
  const stat = await readStat(pid);
  return stat && stat.state !== 'Z' ? stat.startTicks : null;
}

interface ProcStat {
  state: string;
  pgid: number;
  startTicks: string;
}

async function readStat(pid: number | string): Promise<ProcStat | null> {
  const text = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (text === null) return null;
  // Field 2 (the command's name) may hold spaces and parentheses: the fields after it begin after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); field 5 (pgrp) is rest[2]; field 22 (starttime) is rest[19].
  return { state: rest[0], pgid: Number(rest[2]), startTicks: rest[19] };
}

/** Signals every process of the group; false when there is none (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Whether any process of the group still runs. A zombie (ended, its parent not told yet) does not: it holds nothing. */
export async function groupRuns(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  const pids = await fs.readdir('/proc').catch(() => null);
  if (pids === null) return true; // no /proc: the signal's word is all there is
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const st = await readStat(pid);
    if (st && st.pgid === pgid && st.state !== 'Z') return true;
  }
  return false;
}

async function goneWithin(pgid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await groupRuns(pgid))) return true;
    if (Date.now() >= end) return false;
    await sleep(100);
  }
}

/**
 * Ends the group: SIGTERM (a cutter may clean up), then SIGKILL to what is left after `graceMs`. Whether it is gone
 * (false only when something of it survived SIGKILL for 2 s more: a process stuck in the kernel).
 */
export async function endGroup(pgid: number, graceMs = 5000): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  if (await goneWithin(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return goneWithin(pgid, 2000);
}

const endOnExit = new Set<number>();
let exitHook = false;

/**
 * Until the returned function is called, our exit (an uncaught error, process.exit) sends SIGKILL to the group: only
 * a SIGKILL of ours leaves it behind. One 'exit' listener for all groups (32 cutters at once would pass Node's
 * warning at 10 listeners).
 */
export function killGroupAtExit(pgid: number): () => void {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const g of endOnExit) {
        try {
          signalGroup(g, 'SIGKILL');
        } catch {
          // not ours to signal (EPERM): nothing more to do at exit
        }
      }
    });
  }
  endOnExit.add(pgid);
  return () => void endOnExit.delete(pgid);
}
