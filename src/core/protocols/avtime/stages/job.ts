// An AVTime-Bench run as a detached worker job (`fpsweep avtime run --detach`): the same runAvtime as the
// foreground, its log lines and last line on stdout (the worker's log file), the verb and options as JSON.
import * as path from 'node:path';
import { z } from 'zod';
import { spawnDetached, type DetachedWorker } from '../../../runner/control';
import { AVTIME_VERBS, type AvtimeOptionsInput, type AvtimeVerb } from './options';
import { runAvtime } from './run';

export const avtimeJobSchema = z.object({
  verb: z.enum(AVTIME_VERBS),
  options: z.record(z.string(), z.unknown()),
  /** The output root the parent resolved (so the worker locks the same one). */
  outputRoot: z.string(),
  runId: z.string(),
});
export type AvtimeJob = z.infer<typeof avtimeJobSchema>;

export async function runAvtimeJob(json: string): Promise<number> {
  let job: AvtimeJob;
  try {
    job = avtimeJobSchema.parse(JSON.parse(json));
  } catch (err) {
    process.stderr.write(`worker: bad --avtime job: ${(err as Error).message}\n`);
    return 2;
  }
  const res = await runAvtime(job.verb as AvtimeVerb, { ...(job.options as AvtimeOptionsInput), outputRoot: job.outputRoot, runId: job.runId }, {
    log: (l) => process.stdout.write(`${new Date().toISOString()} avtime: ${l}\n`),
  });
  process.stdout.write(`${res.line}\n`);
  return res.exitCode;
}

/** Starts the job detached; returns once the worker holds the output root's lock. Its log: .fpsweep/logs/runner.log. */
export async function startDetachedAvtime(verb: AvtimeVerb, options: AvtimeOptionsInput, outputRoot: string, runId: string): Promise<DetachedWorker> {
  const root = path.resolve(outputRoot);
  const job: AvtimeJob = { verb, options: { ...options, benchRoot: path.resolve(options.benchRoot) } as Record<string, unknown>, outputRoot: root, runId };
  return spawnDetached({
    job: ['--avtime', JSON.stringify(job)],
    logFile: path.join(root, '.fpsweep', 'logs', 'runner.log'),
    lock: { lockFile: path.join(root, '.fpsweep', 'worker.lock') },
    lockName: "output root's lock",
    cwd: process.cwd(),
  });
}
