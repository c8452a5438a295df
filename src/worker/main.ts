// The detached background worker: `node dist/worker.js --protocol <id> --job '<JSON>'` (worker/dispatch.ts),
// started by a run type's run verb with --detach through the engine's spawnDetached (runner/control.ts). Its
// stdout/stderr are the run's runner.log; the job
// holds its root's lock, writes its status file about once a second, and stops as its protocol says.
import { PROTOCOLS } from '../core/protocols/registry';
import { workerMain } from './dispatch';
import { JOB_RUNNERS } from './jobRunners';

workerMain(PROTOCOLS, JOB_RUNNERS);
