// Paths of one direct DVC run (seed Part III §7): the output folder holds raw_predictions.jsonl (unless
// --predictions-jsonl puts it elsewhere, as the seed's example does) and summary.json, as the seed's runner
// writes one shard's folder; `.fpsweep/` holds the engine's state (lock, server logs). Every path is built here.
import * as path from 'node:path';
import { serversFile } from '../../../../serving/leftovers';
import { RunRootPaths } from '../../../../runner/runRoot';

export class DvcLayout extends RunRootPaths {
  readonly rawPredictions: string;
  constructor(outputDir: string, predictionsJsonl?: string) {
    super(outputDir, 'dvc-status.json');
    this.rawPredictions = predictionsJsonl ? path.resolve(predictionsJsonl) : path.join(this.root, 'raw_predictions.jsonl');
  }
  /** Counts, errors, policy and the sha256 of every input and output. */
  get summary() {
    return path.join(this.root, 'summary.json');
  }
  /** The servers a launch started (the engine's serving/leftovers.ts), so a run after a kill -9 can stop them. */
  get serversRecord() {
    return serversFile(this);
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
