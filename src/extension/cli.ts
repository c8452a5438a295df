// Runs `fpsweep <verb>` (the extension's own dist/cli.js) as a child process: the extension host never
// does the work itself and never blocks on it. Output is streamed to the caller as it comes.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface CliInvocation {
  /** dist/ of the installed extension (holds cli.js and worker.js). */
  distDir: string;
  verb: string;
  args: string[];
  /** Extra environment (knobs from the settings, a token for `return --upload`). */
  env?: Record<string, string>;
  cwd?: string;
  /** Keep stdin open as a pipe (child.stdin) for a verb that reads requests from it (`findings --follow`). */
  input?: boolean;
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** SIGINT first (the CLI drains and writes what it has), SIGKILL if it has not ended after graceMs. */
  interrupt(graceMs?: number): void;
}

export function startCli(inv: CliInvocation): CliRun {
  const cli = path.join(inv.distDir, 'cli.js');
  if (!fs.existsSync(cli)) {
    // A broken install (no CLI bundle): said plainly, as the verb's failure.
    const stderr = `fpsweep ${inv.verb}: the CLI bundle ${cli} is missing (reinstall the extension)\n`;
    inv.onOutput?.(stderr, 'stderr');
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    return { child, done: Promise.resolve({ code: 1, signal: null, stdout: '', stderr }), interrupt() {} };
  }
  // In desktop VS Code process.execPath is Electron; ELECTRON_RUN_AS_NODE makes it a plain Node.
  const child = spawn(process.execPath, [cli, inv.verb, ...inv.args], {
    cwd: inv.cwd,
    env: { ...process.env, ...inv.env, ELECTRON_RUN_AS_NODE: '1', FORCE_COLOR: '0' },
    stdio: [inv.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (t: string) => {
    stdout += t;
    inv.onOutput?.(t, 'stdout');
  });
  child.stderr!.on('data', (t: string) => {
    stderr += t;
    inv.onOutput?.(t, 'stderr');
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('error', (err) => {
      stderr += String(err);
      resolve({ code: -1, signal: null, stdout, stderr });
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    done,
    interrupt(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      const t = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, graceMs);
      child.once('close', () => clearTimeout(t));
    },
  };
}

/** The line that says what went wrong: the CLI's own `fpsweep <verb>: …` line, else the last one. */
export function errorLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => l.startsWith('fpsweep ')) ?? lines.find((l) => /^\w*Error\b/.test(l)) ?? lines[lines.length - 1] ?? '';
}

/** The last non-empty line: what the CLI says happened, in numbers (SPEC §8). */
export function lastLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? '';
}
