// Paths of one direct DVC run (seed Part III §7): the output folder holds raw_predictions.jsonl (unless
// --predictions-jsonl puts it elsewhere, as the seed's example does) and summary.json, as the seed's runner
// writes one shard's folder; `.fpsweep/` holds the engine's state (lock, server logs). Every path is built here.
import * as path from 'node:path';
import type { RunRoot } from '../../../../runner/runRoot';

export class DvcLayout implements RunRoot {
  readonly root: string;
  readonly rawPredictions: string;
  constructor(outputDir: string, predictionsJsonl?: string) {
    this.root = path.resolve(outputDir);
    this.rawPredictions = predictionsJsonl ? path.resolve(predictionsJsonl) : path.join(this.root, 'raw_predictions.jsonl');
  }
  /** Counts, errors, policy and the sha256 of every input and output. */
  get summary() {
    return path.join(this.root, 'summary.json');
  }
  get stateDir() {
    return path.join(this.root, '.fpsweep');
  }
  get lockFile() {
    return path.join(this.stateDir, 'worker.lock');
  }
  get statusFile() {
    return path.join(this.stateDir, 'dvc-status.json');
  }
  get logsDir() {
    return path.join(this.stateDir, 'logs');
  }
  get runnerLog() {
    return path.join(this.logsDir, 'runner.log');
  }
  get launchParams() {
    return path.join(this.logsDir, 'launch_params.txt');
  }
  /** One line per server start (../../stages/servers.ts). */
  get serversLog() {
    return path.join(this.stateDir, 'dvc-servers.jsonl');
  }
  vllmLog(id: string) {
    return path.join(this.logsDir, `vllm_${id}.log`);
  }
}
