// The sweep's detached start: its options checked, the stop file of a previous run removed, then the
// engine's worker (runner/control.ts spawnDetached) started on fp's job, the RunOptions.
import { PackageLayout } from '../package/layout';
import { spawnDetached, stopFile, type DetachedWorker } from '../../../runner/control';
import { runOptionsSchema, type RunOptionsInput } from './runOptions';
import { mkdirUnder, removeUnder } from '../../../containment/rootFs';

/**
 * Starts the sweep in a detached worker and returns once it holds the package lock (well under a
 * second), so whoever follows it next (`status --wait`, the runbook) sees this worker and not the
 * status of the one before. A worker that exits first (another worker holds the lock, bad options)
 * is an error carrying what it wrote to logs/runner.log; callers that want the refusal before the
 * spawn check isWorkerAlive() first (the `run` verb does).
 */
export async function startDetachedWorker(opts: RunOptionsInput, env: NodeJS.ProcessEnv = process.env, startTimeoutMs?: number): Promise<DetachedWorker> {
  const options = runOptionsSchema.parse(opts);
  const layout = new PackageLayout(options.package);
  options.package = layout.root;
  await mkdirUnder(layout.root, layout.logsDir);
  await removeUnder(layout.root, stopFile(layout));
  return spawnDetached({
    protocol: 'fp',
    job: options,
    root: layout,
    lockName: 'package lock',
    cwd: layout.root,
    env,
    startTimeoutMs,
  });
}
