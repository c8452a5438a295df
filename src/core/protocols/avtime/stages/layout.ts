// Paths of one AVTime-Bench run: the bench root (inputs) and the output root, exactly the seed's
// canonical tree (Part III §8) plus `.fpsweep/` for the engine's own state (lock, status, server logs).
import * as path from 'node:path';
import { isPlainName } from '../../../package/names';
import { InputError } from '../../../errors';

export class BenchRoot {
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }
  get test() {
    return path.join(this.root, 'test.jsonl');
  }
  get inventory() {
    return path.join(this.root, 'inventory.jsonl');
  }
  get manifest() {
    return path.join(this.root, 'benchmark_reference_manifest.jsonl');
  }
  get targetInputs() {
    return path.join(this.root, 'target_inputs.jsonl');
  }
  get targetInputsReport() {
    return path.join(this.root, 'target_inputs_report.json');
  }
  get promptsDir() {
    return path.join(this.root, 'prompts');
  }
  prompt(name: string) {
    return path.join(this.promptsDir, `${name}.txt`);
  }
}

export function checkRunId(runId: string): string {
  if (!isPlainName(runId)) throw new InputError(`--run-id '${runId}' is not a plain name (letters, digits, '.', '_', '-')`);
  return runId;
}

export class AvtimeRunLayout {
  readonly root: string;
  constructor(
    root: string,
    readonly runId: string,
  ) {
    this.root = path.resolve(root);
    checkRunId(runId);
  }
  get targetInputsReport() {
    return path.join(this.root, 'target_inputs_report.json');
  }
  get inferenceDir() {
    return path.join(this.root, 'inference');
  }
  shardDir(k: number) {
    return path.join(this.inferenceDir, `shard${k}`);
  }
  rawPredictions(k: number) {
    return path.join(this.shardDir(k), 'raw_predictions.jsonl');
  }
  shardSummary(k: number) {
    return path.join(this.shardDir(k), 'summary.json');
  }
  get predictions() {
    return path.join(this.root, 'predictions.jsonl');
  }
  get predictionFailures() {
    return path.join(this.root, 'prediction_failures.jsonl');
  }
  get predictionReport() {
    return path.join(this.root, 'prediction_report.json');
  }
  get semanticRequests() {
    return path.join(this.root, 'semantic_requests.jsonl');
  }
  get semanticResponses() {
    return path.join(this.root, 'semantic_responses.jsonl');
  }
  get semanticFailures() {
    return path.join(this.root, 'semantic_failures.jsonl');
  }
  get semanticReport() {
    return path.join(this.root, 'semantic_report.json');
  }
  get evalDir() {
    return path.join(this.root, 'eval', this.runId);
  }
  get runConfig() {
    return path.join(this.evalDir, 'run_config.json');
  }
  trace(direction: 't2e' | 'e2t' | 'e2e') {
    return path.join(this.evalDir, `${direction}_trace.jsonl`);
  }
  get summary() {
    return path.join(this.evalDir, 'summary.json');
  }
  /** The six scores' bootstrap intervals and the audio − visual differences, beside summary.json (issue 19). */
  get summaryCi() {
    return path.join(this.evalDir, 'summary_ci.json');
  }
  /** The engine's state: not part of the seed's tree. */
  get stateDir() {
    return path.join(this.root, '.fpsweep');
  }
  get lockFile() {
    return path.join(this.stateDir, 'worker.lock');
  }
  get statusFile() {
    return path.join(this.stateDir, 'avtime-status.json');
  }
  /** What this run was started with (options, canonical or not), read back by a resume. */
  get runStart() {
    return path.join(this.stateDir, 'avtime-run.json');
  }
  get logsDir() {
    return path.join(this.stateDir, 'logs');
  }
  get launchParams() {
    return path.join(this.logsDir, 'launch_params.txt');
  }
  /** The target pre-flight's counts (SPEC-AVTIME §3). */
  get preflight() {
    return path.join(this.logsDir, 'preflight.json');
  }
  get runnerLog() {
    return path.join(this.logsDir, 'runner.log');
  }
  vllmLog(id: string) {
    return path.join(this.logsDir, `vllm_${id}.log`);
  }
}
