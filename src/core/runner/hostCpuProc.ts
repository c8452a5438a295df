// One reading of the host's CPU (issue 34): the whole host's busy core-seconds, and our own process tree's share of
// them, split into vLLM's servers (the subtrees of the servers we launched) and the rest of ours (the worker itself:
// sharp's resize and JPEG threads, HTTP; its ffmpeg decodes and GPU frame helpers). Sources, per proc(5):
//  - /proc/stat's first line: `cpu user nice system idle iowait irq softirq steal guest guest_nice` in USER_HZ ticks
//    since boot; busy = user + nice + system + irq + softirq + steal (guest time is already inside user), idle =
//    idle + iowait. Its `cpuN` lines count the cores.
//  - /proc/<pid>/stat: field 4 ppid, 14/15 utime/stime (its own), 16/17 cutime/cstime (its children it has waited
//    for). A process's total is all four: an ffmpeg decode that ended between two readings lives on in its parent's
//    cutime, so summing the live tree's totals loses no exited child (a child reparented away is lost, rarely ours).
// USER_HZ is 100 on Linux (the ABI fixes it; sysconf(_SC_CLK_TCK)). Without /proc (macOS) the host comes from
// os.cpus() (libuv's milliseconds) and the tree is unknown. A reading never throws: a missing file is null.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const USER_HZ = 100;
/** /proc/<pid>/stat files read at once (a vLLM host has hundreds of processes; a reading is a few ms). */
const STAT_READS_AT_ONCE = 64;

export interface CpuReading {
  /** performance.now()-style clock, ms. */
  atMs: number;
  cores: number;
  /** Busy and all core-seconds of the host since boot. */
  hostBusyS: number;
  hostTotalS: number;
  /** Our tree's core-seconds outside vLLM's servers, and inside them (null: no /proc). */
  oursS: number | null;
  vllmS: number | null;
}

export interface CpuReader {
  read(): Promise<CpuReading | null>;
}

/** The `cpu` line of /proc/stat as busy and total seconds, and the cores (`cpuN` lines); null when not that file. */
export function parseProcStat(text: string): { cores: number; busyS: number; totalS: number } | null {
  const lines = text.split('\n');
  const first = lines.find((l) => /^cpu\s/.test(l));
  if (!first) return null;
  const n = first.trim().split(/\s+/).slice(1).map(Number);
  if (n.length < 4 || n.some((x) => !Number.isFinite(x))) return null;
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = n;
  const busy = user + nice + system + irq + softirq + steal;
  const cores = lines.filter((l) => /^cpu\d+\s/.test(l)).length;
  return { cores: Math.max(1, cores), busyS: busy / USER_HZ, totalS: (busy + idle + iowait) / USER_HZ };
}

export interface ProcEntry {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, seconds. */
  cpuS: number;
}

/** /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so fields count from the last ')'. */
export function parseProcPidStat(pid: number, text: string): ProcEntry | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3; field k is rest[k - 3].
  const ppid = Number(rest[1]);
  const ticks = [rest[11], rest[12], rest[13], rest[14]].map(Number);
  if (!Number.isFinite(ppid) || ticks.some((t) => !Number.isFinite(t))) return null;
  return { pid, ppid, cpuS: ticks.reduce((s, t) => s + t, 0) / USER_HZ };
}

/** Every process's entry under procDir (a process gone between the listing and its read is left out). */
async function readProcTable(procDir: string): Promise<ProcEntry[]> {
  const names = (await fs.readdir(procDir).catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  const out: ProcEntry[] = [];
  for (let i = 0; i < names.length; i += STAT_READS_AT_ONCE) {
    const batch = await Promise.all(
      names.slice(i, i + STAT_READS_AT_ONCE).map(async (n) => {
        const text = await fs.readFile(path.join(procDir, n, 'stat'), 'utf8').catch(() => null);
        return text === null ? null : parseProcPidStat(Number(n), text);
      }),
    );
    for (const e of batch) if (e) out.push(e);
  }
  return out;
}

/** Σ CPU of root's live tree, and of the subtrees of `serverPids` inside it (null without servers of ours: --endpoints). */
export function treeCpu(table: readonly ProcEntry[], rootPid: number, serverPids: readonly number[]): { oursS: number; vllmS: number | null } | null {
  const byPid = new Map(table.map((e) => [e.pid, e]));
  if (!byPid.has(rootPid)) return null;
  const children = new Map<number, number[]>();
  for (const e of table) {
    if (e.pid === rootPid) continue; // pid 1's ppid is 0; a root is never its own child
    const list = children.get(e.ppid) ?? [];
    list.push(e.pid);
    children.set(e.ppid, list);
  }
  const servers = new Set(serverPids);
  let oursS = 0;
  let vllmS = 0;
  // Depth-first from the root, each process once (a pid table has no cycles but a racing read could show one).
  const seen = new Set<number>();
  const stack: { pid: number; inServer: boolean }[] = [{ pid: rootPid, inServer: false }];
  while (stack.length) {
    const { pid, inServer } = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const e = byPid.get(pid);
    if (!e) continue;
    const server = inServer || servers.has(pid);
    if (server) vllmS += e.cpuS;
    else oursS += e.cpuS;
    for (const c of children.get(pid) ?? []) stack.push({ pid: c, inServer: server });
  }
  return { oursS, vllmS: servers.size ? vllmS : null };
}

export interface ProcReaderOptions {
  /** /proc, or a fake one in tests. */
  procDir?: string;
  /** Whose tree is ours (the worker: process.pid). */
  rootPid?: number;
  /** The servers we launched (their subtrees are vLLM's); none for --endpoints. */
  serverPids?: () => readonly number[];
  /** Also read the tree (every /proc/<pid>/stat): off, only the host. */
  tree?: boolean;
  now?: () => number;
}

/** The host's CPU from /proc (else os.cpus()), and our tree's from /proc/<pid>/stat. */
export function procCpuReader(opts: ProcReaderOptions = {}): CpuReader {
  const procDir = opts.procDir ?? '/proc';
  const now = opts.now ?? (() => performance.now());
  return {
    async read(): Promise<CpuReading | null> {
      const atMs = now();
      const statText = await fs.readFile(path.join(procDir, 'stat'), 'utf8').catch(() => null);
      const host = statText !== null ? parseProcStat(statText) : opts.procDir ? null : cpusHost();
      if (!host) return null;
      const tree =
        statText !== null && opts.tree !== false ? treeCpu(await readProcTable(procDir), opts.rootPid ?? process.pid, opts.serverPids?.() ?? []) : null;
      return { atMs, cores: host.cores, hostBusyS: host.busyS, hostTotalS: host.totalS, oursS: tree?.oursS ?? null, vllmS: tree?.vllmS ?? null };
    },
  };
}

/** Without /proc: libuv's per-core times (ms). */
function cpusHost(): { cores: number; busyS: number; totalS: number } | null {
  const cpus = os.cpus();
  if (!cpus.length) return null;
  let busy = 0;
  let total = 0;
  for (const c of cpus) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { cores: cpus.length, busyS: busy / 1000, totalS: total / 1000 };
}
