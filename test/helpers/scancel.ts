// A scheduler's cancel without the scheduler (issue 43): Slurm's `scancel` with proctrack/linuxproc sends SIGTERM to
// every process of the job, found by parent (not by process group), the run and each of its children at once. Also
// the CLI as the job scripts run it (`node --import tsx src/cli/main.ts …`, a process of its own) and a stand-in for
// a slow ffmpeg or ffprobe that says its pid while a gate file exists, so the test knows a child is under way, and the
// cancel of a run while such a child runs, waited for by states (the child under way, the CLI gone), never by time.
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { exitedWithin } from './procExplain';
import { descendants } from './procTree';
import { waitFor } from './waitFor';

export { descendants };

export const REPO = path.resolve(__dirname, '..', '..');

/** The CLI as a command line (FPSWEEP of the job scripts): node with tsx on the sources. */
export function cliCommand(): string[] {
  const tsx = pathToFileURL(path.join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return [process.execPath, '--import', tsx, path.join(REPO, 'src', 'cli', 'main.ts')];
}

export interface CliProcess {
  child: ChildProcess;
  /** What it printed so far. */
  out(): string;
  /** Its exit code (a signal's death reads as 128 + n) and everything it printed. */
  exited: Promise<{ code: number; out: string }>;
}

/** Starts the CLI as a process of its own with `args`, `env` added to this process's; `cwd`: typed from there. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): CliProcess {
  const [node, ...pre] = cliCommand();
  const child = spawn(node, [...pre, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number; out: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? 128 + (signal === 'SIGTERM' ? 15 : 9), out })),
  );
  return { child, out: () => out, exited };
}

/** scancel as proctrack/linuxproc delivers it: SIGTERM to `pid` and to each of its descendants. */
export async function cancelLikeSlurm(pid: number): Promise<void> {
  for (const p of [pid, ...(await descendants(pid))]) {
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      // ended meanwhile
    }
  }
}

/** The pids (of `dir`'s files) that are live descendants of `pid`: the gated children under way. */
export async function gatedChildrenOf(pid: number, dir: string): Promise<number[]> {
  const mine = new Set(await descendants(pid));
  return (await fs.readdir(dir)).map(Number).filter((p) => mine.has(p));
}

/**
 * A stand-in for `bin` (ffmpeg, ffprobe) at `file`: while `gate` exists and its arguments contain `match`, it writes
 * its pid into `pids/` and is slow: `slow` is either arguments put first (ffmpeg's `-readrate 0.2`: the real child
 * is under way, slowly) or 'wait' (it waits for the gate to go, then runs `bin`). Else it is `bin` itself.
 */
export async function gatedBin(file: string, bin: string, o: { gate: string; pids: string; match?: string; slow: string[] | 'wait' }): Promise<void> {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const when = `[ -e ${q(o.gate)} ]${o.match ? ` && case "$*" in *${q(o.match)}*) true;; *) false;; esac` : ''}`;
  const slow = o.slow === 'wait' ? `  while [ -e ${q(o.gate)} ]; do sleep 0.05; done\n  exec ${bin} "$@"\n` : `  exec ${bin} ${o.slow.map(q).join(' ')} "$@"\n`;
  await fs.mkdir(o.pids, { recursive: true });
  await fs.writeFile(file, `#!/bin/sh\nif ${when}; then\n  touch ${q(o.pids)}/$$\n${slow}fi\nexec ${bin} "$@"\n`, { mode: 0o755 });
}

/** A gated stand-in for `bin` made by `gatedChild`: the command to give the CLI, its gate and where pids go. */
export interface GatedChild {
  /** The stand-in (FFMPEG_BIN or FFPROBE_BIN of the CLI). */
  file: string;
  /** While this file exists, a matching call is gated; made closed (existing) by `gatedChild`. */
  gate: string;
  /** The folder each gated call writes its pid into. */
  pids: string;
}

/** `gatedBin` in `dir` (slow-<bin>, <bin>-pids, gate), its gate closed: calls matching `match` are gated from now on. */
export async function gatedChild(dir: string, bin: string, o: { match: string; slow: string[] | 'wait' }): Promise<GatedChild> {
  const g = { file: path.join(dir, `slow-${bin}`), gate: path.join(dir, 'gate'), pids: path.join(dir, `${bin}-pids`) };
  await fs.writeFile(g.gate, '');
  await gatedBin(g.file, bin, { gate: g.gate, pids: g.pids, match: o.match, slow: o.slow });
  return g;
}

/**
 * Issue 43's cancel: waits (at most 120 s) until one of `gated`'s children of `cli` is under way (`what` names it in a
 * failure), cancels as scancel does (SIGTERM to the CLI and every descendant at once), opens the gate, and returns
 * the CLI's end (at most 120 s more; past it the failure says what the CLI was doing).
 */
export async function cancelDuringGatedChild(cli: CliProcess, gated: GatedChild, what: string): Promise<{ code: number; out: string }> {
  const pid = cli.child.pid!;
  await waitFor(
    async () => (await gatedChildrenOf(pid, gated.pids)).length > 0,
    120_000,
    () => `${what} under way; the CLI printed:\n${cli.out()}`,
  );
  await cancelLikeSlurm(pid);
  await fs.rm(gated.gate);
  return exitedWithin(cli, 120_000, 'the cancelled CLI gone');
}
