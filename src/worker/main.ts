// The detached background worker: `node dist/worker.js --options '<RunOptions JSON>'`, started by
// `fpsweep run --detach` (startDetachedWorker). Its stdout/stderr are logs/runner.log; it holds the
// package lock, writes .fpsweep/status.json each second and drains on SIGTERM or the stop file.
// `--avtime '<job JSON>'` runs an AVTime-Bench job instead (`fpsweep avtime run --detach`): it holds the
// output root's lock and writes .fpsweep/avtime-status.json there.
import { defaultSweepDeps } from '../core/runner/adapters';
import { runOptionsSchema } from '../core/runner/runOptions';
import { runSweep } from '../core/runner/sweep';

async function main(argv: string[]): Promise<number> {
  const a = argv.indexOf('--avtime');
  if (a >= 0) {
    process.on('SIGHUP', () => undefined);
    // Loaded only for this job, so the sweep worker does not load the AVTime protocol.
    const { runAvtimeJob } = require('../core/protocols/avtime/stages/job') as typeof import('../core/protocols/avtime/stages/job');
    return runAvtimeJob(argv[a + 1] ?? '');
  }
  const i = argv.indexOf('--options');
  if (i < 0 || !argv[i + 1]) {
    process.stderr.write('usage: worker --options JSON (started by `fpsweep run --detach`)\n');
    return 2;
  }
  const parsed = runOptionsSchema.safeParse(JSON.parse(argv[i + 1]));
  if (!parsed.success) {
    process.stderr.write(`worker: bad options: ${parsed.error.message}\n`);
    return 2;
  }
  // The session may lose its terminal (SSH dropped): SIGHUP must not end the sweep.
  process.on('SIGHUP', () => undefined);
  try {
    // The summary is in runner.log already (this process's stdout is that file too).
    const res = await runSweep(parsed.data, defaultSweepDeps);
    return res.exitCode;
  } catch (err) {
    const e = err as Error;
    process.stderr.write(`worker: ${e?.name === 'InputError' || e?.name === 'LockHeldError' ? e.message : e?.stack ?? String(err)}\n`);
    return e?.name === 'InputError' || e?.name === 'LockHeldError' || e?.name === 'UsageError' ? 2 : 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Open handles (a pool socket, a timer) must not keep a finished worker alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err) => {
    process.stderr.write(String(err?.stack ?? err) + '\n');
    process.exit(1);
  },
);
