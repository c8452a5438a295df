// The detached background worker: `node dist/worker.js --protocol <id> --job '<JSON>'` (worker/dispatch.ts; the
// older `--options '<RunOptions>'` and `--avtime '<job>'` are aliases). Started by `fpsweep run --detach`
// (protocols/fp/sweep/startDetached.ts) or `fpsweep avtime run --detach`. Its stdout/stderr are the run's runner.log; the job
// holds its root's lock, writes its status file about once a second, and stops as its protocol says.
import { PROTOCOLS } from '../core/protocols/registry';
import { runWorker } from './dispatch';
import { JOB_RUNNERS } from './jobRunners';

// The session may lose its terminal (SSH dropped): SIGHUP must not end the run.
process.on('SIGHUP', () => undefined);

runWorker(process.argv.slice(2), PROTOCOLS, JOB_RUNNERS, (s) => process.stderr.write(s)).then(
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
