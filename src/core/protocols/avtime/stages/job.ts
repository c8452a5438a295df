// An AVTime-Bench run as a detached worker job (`fpsweep avtime run --detach`): the same runAvtime as the
// foreground, its log lines and last line on stdout (the worker's log file), the verb and options as JSON.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readLock } from '../../../runner/lock';
import type { AvtimeStatusWriter } from './statusWriter';
import { AvtimeRunLayout } from './layout';
import { spawnDetached, type DetachedWorker } from '../../../runner/control';
import type { AvtimeOptionsInput, AvtimeVerb } from './options';
import { runAvtime } from './run';

import { avtimeJobSchema, type AvtimeJob } from './jobSchema';
export { avtimeJobSchema, type AvtimeJob };

export async function runAvtimeJob(json: string): Promise<number> {
  let job: AvtimeJob;
  try {
    job = avtimeJobSchema.parse(JSON.parse(json));
  } catch (err) {
    process.stderr.write(`worker: bad --avtime job: ${(err as Error).message}\n`);
    return 2;
  }
  // SIGTERM (e.g. `kill <pid>`): say so in the status file, give the lock back, and exit; the launched
  // servers go with us (execa's cleanup). Stages are fail-closed, so a stopped run is resumed, not patched.
  let locked: { layout: AvtimeRunLayout; status: AvtimeStatusWriter } | null = null;
  process.once('SIGTERM', () => {
    void stopped(locked).finally(() => process.exit(143));
  });
  const res = await runAvtime(
    job.verb as AvtimeVerb,
    { ...(job.options as AvtimeOptionsInput), outputRoot: job.outputRoot, runId: job.runId },
    {
      log: (l) => process.stdout.write(`${new Date().toISOString()} avtime: ${l}\n`),
      onLocked: (layout, status) => {
        locked = { layout, status };
      },
    },
  );
  process.stdout.write(`${res.line}\n`);
  return res.exitCode;
}

/** What the user can do after a stop: a canonical run stopped before its target shards finished cannot resume. */
export function stopAdvice(s: Pick<AvtimeStatusWriter['status'], 'canonical' | 'stages'>): string {
  const infer = s.stages.find((x) => x.name === 'infer');
  const inferUnfinished = !!infer && infer.state !== 'done' && infer.state !== 'skipped';
  if (s.canonical && inferUnfinished) return 'canonical target shards never resume: start a new run (new --run-id)';
  return 'continue with --resume';
}

async function stopped(held: { layout: AvtimeRunLayout; status: AvtimeStatusWriter } | null): Promise<void> {
  process.stdout.write(`${new Date().toISOString()} avtime: stopped by SIGTERM\n`);
  if (!held) return;
  // end() stops the timer and writes after any write in progress, so this is the file's last state.
  await held.status.end('failed', `stopped by SIGTERM (${stopAdvice(held.status.status)})`);
  if ((await readLock(held.layout))?.pid === process.pid) await fs.rm(held.layout.lockFile, { force: true });
}

/** Starts the job detached; returns once the worker holds the output root's lock. Its log: .fpsweep/logs/runner.log. */
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
