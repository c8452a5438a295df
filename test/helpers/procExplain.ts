// Why a process a test waited for is still there (issue 43): a wait for a worker's end that runs out says what the
// worker was doing, so a failure under load explains itself: its /proc state (Z: ended, its parent has not reaped it),
// where it sleeps in the kernel (wchan), its parent, its live children with their states and command lines, the end
// of its log and, where the worker was started with a report directory (NODE_OPTIONS --report-on-signal), Node's own
// report: the JavaScript stack and the libuv handles still open (a child, a socket, a timer it waits on).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendants } from './procTree';

/** NODE_OPTIONS for a worker whose report `explainProcess` may ask for (SIGUSR2 writes it into `dir`). */
export function reportOnSignal(dir: string): string {
  return `--report-on-signal --report-signal=SIGUSR2 --report-directory=${dir}`;
}

interface ProcLine {
  pid: number;
  state: string;
  ppid: number;
  wchan: string;
  cmd: string;
}

async function procLine(pid: number): Promise<ProcLine | null> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const wchan = await fs.readFile(`/proc/${pid}/wchan`, 'utf8').catch(() => '?');
  const cmd = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  return { pid, state: rest[0], ppid: Number(rest[1]), wchan: wchan || '0', cmd: cmd.split('\0').join(' ').trim().slice(0, 200) || `[${name}]` };
}

const show = (p: ProcLine) => `pid ${p.pid} state ${p.state} ppid ${p.ppid} wchan ${p.wchan}: ${p.cmd}`;

/**
 * The processes listening on TCP `port` (any address, IPv4 or IPv6), each as `pid N state S ppid P wchan W: command
 * line`: the LISTEN sockets of /proc/net/tcp{,6} matched by inode against every process's open descriptors (all of
 * them readable as root; a process whose descriptors are not is passed over). [] when none is found.
 */
export async function listenersOn(port: number): Promise<string[]> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of (await fs.readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const [, local, , state, , , , , , inode] = row.trim().split(/\s+/);
      if (state === '0A' && local && parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(inode);
    }
  }
  const out: string[] = [];
  if (inodes.size === 0) return out;
  for (const e of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    for (const fd of await fs.readdir(`/proc/${e}/fd`).catch(() => [] as string[])) {
      const target = await fs.readlink(`/proc/${e}/fd/${fd}`).catch(() => '');
      if (!inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '')) continue;
      const p = await procLine(Number(e));
      out.push(p ? show(p) : `pid ${e}`);
      break;
    }
  }
  return out;
}

/** A Node report's JavaScript stack and open libuv handles, cut to what matters. */
function summarizeReport(text: string): string {
  try {
    const r = JSON.parse(text) as {
      javascriptStack?: { message?: string; stack?: string[] };
      libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; pid?: number; localEndpoint?: unknown; remoteEndpoint?: unknown }[];
    };
    const stack = (r.javascriptStack?.stack ?? []).slice(0, 12).join(' / ');
    const handles = (r.libuv ?? [])
      .filter((h) => h.is_active)
      .map((h) => {
        const peer = h.remoteEndpoint ? ` -> ${JSON.stringify(h.remoteEndpoint)}` : '';
        return `${h.type}${h.pid ? ` pid ${h.pid}` : ''}${peer}${h.is_referenced ? '' : ' (unref)'}`;
      });
    return `JS stack: ${r.javascriptStack?.message ?? ''} ${stack}\nactive libuv handles: ${handles.join('; ')}`;
  } catch {
    return `unreadable report (${text.length} chars)`;
  }
}

/** Asks `pid` for its Node report (SIGUSR2) and returns its summary, if one appears in `dir` within 10 s. */
async function nodeReport(pid: number, dir: string): Promise<string> {
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return 'no report: the process is gone';
  }
  for (let i = 0; i < 200; i++) {
    const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.includes(`.${pid}.`) && f.endsWith('.json'));
    if (files.length > 0) {
      await sleep(200); // written in one go, but let it finish
      return summarizeReport(await fs.readFile(path.join(dir, files[0]), 'utf8'));
    }
    await sleep(50);
  }
  return 'no report within 10 s';
}

/** What `pid` is doing, for a failure message: see the header. */
export async function explainProcess(pid: number, o: { log?: string; logLines?: number; reportDir?: string } = {}): Promise<string> {
  const out: string[] = [];
  const me = await procLine(pid);
  out.push(me ? `process ${show(me)}` : `process ${pid}: no /proc entry (gone)`);
  if (me) {
    const parent = await procLine(me.ppid);
    if (parent) out.push(`its parent: ${show(parent)}${me.ppid === process.pid ? ' (this test process)' : ''}`);
    const kids = (await Promise.all((await descendants(pid)).map(procLine))).filter((p): p is ProcLine => p !== null);
    out.push(kids.length ? `its descendants:\n  ${kids.map(show).join('\n  ')}` : 'no descendants');
    if (o.reportDir && me.state !== 'Z') out.push(await nodeReport(pid, o.reportDir));
  }
  if (o.log) {
    const text = await fs.readFile(o.log, 'utf8').catch((e: Error) => `(no log: ${e.message})`);
    out.push(
      `last lines of ${o.log}:\n${text
        .trimEnd()
        .split('\n')
        .slice(-(o.logLines ?? 30))
        .join('\n')}`,
    );
  }
  return out.join('\n');
}

/**
 * A CLI process's end (test/helpers/scancel.ts's spawnCli), waited for at most `ms`: past it the wait fails with what
 * the process was doing and the end of what it printed, instead of running into the test's own timeout unexplained.
 */
export async function exitedWithin<T>(cli: { child: { pid?: number }; out(): string; exited: Promise<T> }, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const r = await Promise.race([cli.exited, late]);
    if (r !== 'late') return r;
  } finally {
    clearTimeout(timer);
  }
  const printed = cli.out().trimEnd().split('\n').slice(-30).join('\n');
  throw new Error(`${what} (waited ${ms} ms)\n${await explainProcess(cli.child.pid ?? -1)}\nlast lines it printed:\n${printed}`);
}
