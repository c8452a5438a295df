// A cutter as the run sees it: something that writes one video's directory into its staging directory, its words
// going to the video's log. Two kinds: the user's AVCut (`--cutter CMD`, an argv template) and ours (`builtin`).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { openTruncatedUnder } from '../../containment/rootFs';
import { endGroup, killGroupAtExit, signalGroup } from '../../runner/processGroup';
import { fillCutterTemplate } from './cutterCommand';
import { childStopped, stoppedFromOutside } from '../../media/stoppedChild';

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
  /** Told the process group of a cutter that runs as one (its leader's pid) once it has started: its record. */
  started?: (pgid: number) => Promise<void>;
}

/**
 * The cutter's verdict: ok, or why not. `whole`: the reason already says all there is (the builtin's error); else
 * (a command's exit status) the log's last lines follow it. `interrupted`: the cutter (or its ffmpeg) was stopped by a
 * signal from outside (a scheduler's cancel): no failure of the video, which stays to do (issue 43).
 */
export type CutResult = { ok: true } | { ok: false; reason: string; whole?: boolean; interrupted?: boolean };

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
      // Its own process group (processGroup.ts): a stop ends AVCut's ffmpeg and model processes with it, and a run
      // after a crash of ours finds the group by the record `started` made (cutterRecords.ts) and ends it.
      const child = execa(filled[0], filled.slice(1), {
        env: { ...env, ...(req.gpu === null ? {} : { CUDA_VISIBLE_DEVICES: req.gpu }) },
        stdin: 'ignore',
        reject: false,
        detached: true,
        // Its stdout and stderr go to the video's log as they come (a crash leaves its last words there).
        stdout: ['pipe'],
        stderr: ['pipe'],
        buffer: false,
      });
      child.stdout?.pipe(req.log, { end: false });
      child.stderr?.pipe(req.log, { end: false });
      const pid = child.pid;
      const forgetAtExit = pid !== undefined ? killGroupAtExit(pid) : () => undefined;
      const onAbort = () => void (pid !== undefined && endGroup(pid).catch(() => undefined));
      if (pid !== undefined) {
        req.signal.addEventListener('abort', onAbort, { once: true });
        if (req.signal.aborted) onAbort();
      }
      try {
        // A cutter we could not record would be found by no later run: it is ended, and the video fails with why.
        if (pid !== undefined && req.started) {
          try {
            await req.started(pid);
          } catch (err) {
            await endGroup(pid);
            throw err;
          }
        }
        const r = await child;
        if ((r as { code?: string }).code === 'ENOENT') return { ok: false, reason: `the cutter ${filled[0]} was not found` };
        if (r.exitCode === 0) return { ok: true };
        if (req.signal.aborted) return { ok: false, reason: 'stopped before the cutter finished' };
        if (stoppedFromOutside(r)) return { ok: false, reason: childStopped(`the cutter ${filled[0]}`, r).message, interrupted: true };
        return { ok: false, reason: `the cutter exited with ${r.exitCode ?? r.signal ?? '?'}` };
      } finally {
        forgetAtExit();
        req.signal.removeEventListener('abort', onAbort);
        // What the cutter left running in its group ends with it (a stop's endGroup is under way already).
        if (pid !== undefined && !req.signal.aborted) signalGroupQuietly(pid, 'SIGKILL');
      }
    },
  };
}

function signalGroupQuietly(pgid: number, signal: NodeJS.Signals): void {
  try {
    signalGroup(pgid, signal);
  } catch {
    // not ours to signal (EPERM): nothing more to do at exit
  }
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

/** A video's log under the output root, opened empty through the containment module (never through a link). */
export async function openVideoLog(root: string, file: string): Promise<Writable> {
  const fh = await openTruncatedUnder(root, file);
  return fh.createWriteStream();
}
