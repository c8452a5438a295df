// Frames × Pixels's worker job: the sweep in this process (the worker side; the extension never loads it).
import { exitFor } from '../../errors';
import type { RunOptions } from './sweep/runOptions';
import { defaultSweepDeps } from './sweep/adapters';
import { runSweep } from './sweep/sweep';

/** The sweep in this process, as `worker --options` always ran it: exit 2 for bad input or a held lock. */
export async function runFpJob(options: RunOptions): Promise<number> {
  try {
    // The summary is in runner.log already (this process's stdout is that file too).
    return (await runSweep(options, defaultSweepDeps)).exitCode;
  } catch (err) {
    const exit = exitFor(err);
    process.stderr.write(`worker: ${exit.text}\n`);
    return exit.code;
  }
}
