// The engine's public API (see docs/ARCHITECTURE.md, "Runner and worker"): what the CLI verbs and the
// extension use to watch and stop a run, for any protocol. A protocol's own run (Frames × Pixels:
// runSweep, its options, its detached start, its live status) lives in its folder (protocols/fp/sweep/).
export { isWorkerAlive, requestStop, waitForWorkerExit, spawnDetached, stopFile, type DetachedWorker, type DetachedJob, type StopRequest } from './control';
export { readStatus, writeStatusAtomic } from '../protocols/fp/status/status';
export { statusLine, formatStatus } from '../protocols/fp/status/formatStatus';
export { LockHeldError, liveLockHolder, readLock, type LockInfo } from './lock';
export { workerStatusSchema, type WorkerStatus, type CellProgress, type ServerStatus, type WorkerState } from '../protocols/fp/status/statusSchema';
