// The runner's public API (see docs/ARCHITECTURE.md, "Runner and worker"): what the CLI verbs and the
// extension use to start, watch and stop a sweep.
export { runSweep, type SweepDeps, type SweepHooks, type SweepResult } from '../protocols/fp/sweep/sweep';
export { defaultSweepDeps } from '../protocols/fp/sweep/adapters';
export { runOptionsSchema, type RunOptions, type RunOptionsInput } from '../protocols/fp/sweep/runOptions';
export { startDetachedWorker, isWorkerAlive, requestStop, waitForWorkerExit, stopFile, type DetachedWorker, type StopRequest } from './control';
export { readStatus, readLiveStatus, type LiveStatus } from './status';
export { statusLine, formatStatus } from './formatStatus';
export { LockHeldError, liveLockHolder, readLock, type LockInfo } from './lock';
export { workerStatusSchema, type WorkerStatus, type CellProgress, type ServerStatus, type WorkerState } from './statusSchema';
