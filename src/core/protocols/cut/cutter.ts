// A cutter as the run sees it: something that writes one video's directory into its staging directory, its words
// going to the video's log. Two kinds: the user's AVCut (`--cutter CMD`, an argv template) and ours (`builtin`).
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { fillCutterTemplate } from './cutterCommand';

export interface CutRequest {
  stem: string;
  input: string;
  /** The job's own empty directory ({staging}). */
  staging: string;
  /** CUDA_VISIBLE_DEVICES for this job, or null (no GPU visible). */
  gpu: string | null;
  /** The video's log (the cutter's stdout and stderr, our lines). */
  log: Writable;
  signal: AbortSignal;
}

/** The cutter's verdict: ok, or why not (its exit and last words). */
export type CutResult = { ok: true } | { ok: false; reason: string };

export interface Cutter {
  /** 'builtin', or the program's name. */
  readonly name: string;
  /** Channels this cutter is known to run without (the builtin's), accepted without --allow-degraded. */
  readonly knownDegraded: readonly string[];
  cut(req: CutRequest): Promise<CutResult>;
}

/** The user's cutter: the template filled, run as argv with CUDA_VISIBLE_DEVICES, stdout and stderr into the log. */
export function commandCutter(argv: readonly string[], configFile: string | null, env: NodeJS.ProcessEnv = process.env): Cutter {
  return {
    name: path.basename(argv[0]),
    knownDegraded: [],
    async cut(req) {
      const filled = fillCutterTemplate(argv, { input: req.input, config: configFile, staging: req.staging });
      req.log.write(`$ ${filled.map((w) => (/[\s'"\\$]/.test(w) ? JSON.stringify(w) : w)).join(' ')}\n`);
      const { execa } = await import('execa');
      const child = execa(filled[0], filled.slice(1), {
        env: { ...env, ...(req.gpu === null ? {} : { CUDA_VISIBLE_DEVICES: req.gpu }) },
        stdin: 'ignore',
        reject: false,
        cancelSignal: req.signal,
        // Its stdout and stderr go to the video's log as they come (a crash leaves its last words there).
        stdout: ['pipe'],
        stderr: ['pipe'],
        buffer: false,
        forceKillAfterDelay: 5000,
      });
      child.stdout?.pipe(req.log, { end: false });
      child.stderr?.pipe(req.log, { end: false });
      const r = await child;
      if (r.isCanceled) return { ok: false, reason: 'stopped before the cutter finished' };
      if ((r as { code?: string }).code === 'ENOENT') return { ok: false, reason: `the cutter ${filled[0]} was not found` };
      if (r.exitCode !== 0) return { ok: false, reason: `the cutter exited with ${r.exitCode ?? r.signal ?? '?'}` };
      return { ok: true };
    },
  };
}

/** The last lines of a video's log: what a failure shows of the cutter's words. */
export async function logTail(file: string, lines = 3): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-lines)
    .join(' | ');
}

export function openVideoLog(file: string): Promise<Writable> {
  return fs.mkdir(path.dirname(file), { recursive: true }).then(
    () =>
      new Promise<Writable>((resolve, reject) => {
        const s = createWriteStream(file, { flags: 'w' });
        s.once('open', () => resolve(s));
        s.once('error', reject);
      }),
  );
}
