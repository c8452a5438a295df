// An AVTime-Bench run as a detached worker job (`fpsweep avtime run --detach`): the same runAvtime as the
// foreground, its log lines and last line on stdout (the worker's log file), the verb and options as JSON.
// A stop (SIGTERM, the stop file) is the run session's (./run.ts): the job only reports the exit code.
import * as path from 'node:path';
import { AvtimeRunLayout } from './layout';
import { spawnDetached, type DetachedWorker } from '../../../runner/control';
import type { AvtimeOptionsInput, AvtimeVerb } from './options';
import { runAvtime } from './run';

import { avtimeJobSchema, type AvtimeJob } from './jobSchema';
import { parseBoundedJson } from '../../../io/boundedJson';
export { avtimeJobSchema, type AvtimeJob };

export async function runAvtimeJob(json: string): Promise<number> {
  let job: AvtimeJob;
  try {
    job = avtimeJobSchema.parse(parseBoundedJson(json));
  } catch (err) {
    process.stderr.write(`worker: bad --avtime job: ${(err as Error).message}\n`);
    return 2;
  }
  const res = await runAvtime(
    job.verb as AvtimeVerb,
    { ...(job.options as AvtimeOptionsInput), outputRoot: job.outputRoot, runId: job.runId },
    { log: (l) => process.stdout.write(`${new Date().toISOString()} avtime: ${l}\n`) },
  );
  process.stdout.write(`${res.line}\n`);
  return res.exitCode;
}

/** Starts the job detached; returns once the worker holds the output root's lock. Its log: the layout's runnerLog. */
export async function startDetachedAvtime(verb: AvtimeVerb, options: AvtimeOptionsInput, outputRoot: string, runId: string): Promise<DetachedWorker> {
  const root = path.resolve(outputRoot);
  const job: AvtimeJob = { verb, options: { ...options, benchRoot: path.resolve(options.benchRoot) } as Record<string, unknown>, outputRoot: root, runId };
  return spawnDetached({
    protocol: 'avtime',
    job,
    root: new AvtimeRunLayout(root, runId),
    lockName: "output root's lock",
    cwd: process.cwd(),
  });
}
