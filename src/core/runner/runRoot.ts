// Where a run keeps the engine's state, whatever its run type: the lock its worker holds, the status file it
// rewrites about once a second, the stop file a `stop` writes, and the runner log. A run type's layout
// (Frames × Pixels's package, AVTime's output root) implements this; the engine never builds these paths itself.
import * as path from 'node:path';

export interface RunRoot {
  /** The run's root folder (absolute). */
  readonly root: string;
  /** The engine's own state under the root (`.fpsweep/`): lock, status, stop file. Not part of a run's returns. */
  readonly stateDir: string;
  readonly lockFile: string;
  readonly statusFile: string;
  /** The run's logs (the runner log, the servers' logs). */
  readonly logsDir: string;
  /** The worker's log (its stdout and stderr when detached). */
  readonly runnerLog: string;
}

/** The stop request file the worker looks for on each status tick (SIGTERM is the other way in). */
export function stopFile(root: Pick<RunRoot, 'stateDir'>): string {
  return path.join(root.stateDir, 'stop');
}

/** The engine's state of a run type with no layout of its own: everything under `<root>/.fpsweep/`. */
export function defaultRunRoot(root: string, statusName = 'status.json'): RunRoot {
  const abs = path.resolve(root);
  const stateDir = path.join(abs, '.fpsweep');
  return {
    root: abs,
    stateDir,
    lockFile: path.join(stateDir, 'worker.lock'),
    statusFile: path.join(stateDir, statusName),
    logsDir: path.join(stateDir, 'logs'),
    runnerLog: path.join(stateDir, 'logs', 'runner.log'),
  };
}

/** A layout class's engine half: the paths of defaultRunRoot (everything under `<root>/.fpsweep/`) as its fields. */
export class RunRootPaths implements RunRoot {
  readonly root: string;
  readonly stateDir: string;
  readonly lockFile: string;
  readonly statusFile: string;
  readonly logsDir: string;
  readonly runnerLog: string;
  constructor(root: string, statusName: string) {
    const r = defaultRunRoot(root, statusName);
    this.root = r.root;
    this.stateDir = r.stateDir;
    this.lockFile = r.lockFile;
    this.statusFile = r.statusFile;
    this.logsDir = r.logsDir;
    this.runnerLog = r.runnerLog;
  }
}
