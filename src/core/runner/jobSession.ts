// A data job's worker side on the engine (the caption and the cut): its own run id, one 'drain' session on the
// rank's root with lines on stdout, and any error out of it as `<name>: <text>` on stderr with its exit code
// (2 for the user's errors and a held lock, else 1).
import { exitFor } from '../errors';
import type { RunRoot } from './runRoot';
import { stdoutSessionLog, withRunSession, type RunSession } from './runSession';

export interface JobSessionOptions {
  /** The run type's name: the run id's prefix and the stderr line's. */
  name: string;
  root: RunRoot;
  /** The status tick (default 1 s). */
  tickMs?: number;
}

/** Runs `body` in a new drain session on `root`; its exit code, or the code of what it (or the session) threw. */
export async function runJobInSession(options: JobSessionOptions, body: (session: RunSession) => Promise<number>): Promise<number> {
  const runId = `${options.name}-${Date.now().toString(36)}-${process.pid}`;
  try {
    return await withRunSession({ root: options.root, runId, policy: 'drain', log: stdoutSessionLog, tickMs: options.tickMs }, body);
  } catch (err) {
    const exit = exitFor(err);
    process.stderr.write(`${options.name}: ${exit.text}\n`);
    return exit.code;
  }
}
