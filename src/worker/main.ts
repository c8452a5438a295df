// The detached background worker: `node dist/worker.js --protocol <id> --job '<JSON>'` (worker/dispatch.ts; the
// older `--options '<RunOptions>'` and `--avtime '<job>'` are aliases). Started by `fpsweep run --detach`
// (protocols/fp/sweep/startDetached.ts) or `fpsweep avtime run --detach`. Its stdout/stderr are the run's runner.log; the job
// holds its root's lock, writes its status file about once a second, and stops as its protocol says.
import { PROTOCOLS } from '../core/protocols/registry';
import { workerMain } from './dispatch';
import { JOB_RUNNERS } from './jobRunners';

workerMain(PROTOCOLS, JOB_RUNNERS);
