// The engine's public API (see docs/ARCHITECTURE.md, "Runner and worker"): what the CLI verbs and the
// extension use to watch and stop a run, for any protocol. A protocol's own run and status (Frames × Pixels:
// runSweep, its options, its detached start in protocols/fp/sweep/; its status file and its text in
// protocols/fp/status/) live in its folder.
export { isWorkerAlive, requestStop, waitForWorkerExit, spawnDetached, stopFile, type DetachedWorker, type DetachedJob, type StopRequest } from './control';
export { LockHeldError, liveLockHolder, readLock, type LockInfo } from './lock';
