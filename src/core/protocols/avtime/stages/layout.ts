// Paths of one AVTime-Bench run: the bench root (inputs) and the output root, exactly the seed's
// canonical tree (Part III §8) plus `.fpsweep/` for the engine's own state (lock, status, server logs).
// Every path of a run is built here; nothing else spells one.
import * as path from 'node:path';
import { serversFile } from '../../../serving/leftovers';
import { isPlainName } from '../../../package/names';
import { InputError } from '../../../errors';
import { RunRootPaths } from '../../../runner/runRoot';

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

/** The report a target-inputs build writes beside the file it builds (wherever --target-inputs puts it). */
export function targetInputsReportBeside(targetInputs: string): string {
  return path.join(path.dirname(path.resolve(targetInputs)), 'target_inputs_report.json');
}

/** A run's output root when --output-root is not given: outputs/avtime-bench/<RUN_ID> under `cwd`. */
export function defaultOutputRoot(runId: string, cwd = process.cwd()): string {
  return path.join(cwd, 'outputs', 'avtime-bench', checkRunId(runId));
}

export function checkRunId(runId: string): string {
  if (!isPlainName(runId)) throw new InputError(`--run-id '${runId}' is not a plain name (letters, digits, '.', '_', '-')`);
  return runId;
}

/**
 * The output root's paths that do not depend on the run id: the seed's tree below the root, and the engine's
 * state under `.fpsweep/` (RunRoot: lock, status, runner log; the stop file is the engine's `stopFile`).
 * Readers that do not know the run id yet (progress, report, `stop`) use this; a run uses AvtimeRunLayout.
 */
export class AvtimeOutputRoot extends RunRootPaths {
  constructor(root: string) {
    // The engine's state (.fpsweep/: lock, status, logs) is not part of the seed's tree.
    super(root, 'avtime-status.json');
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
  /** `eval/`: one folder per run id. */
  get evalRoot() {
    return path.join(this.root, 'eval');
  }
  /** A run's own folder under eval/ (a run checks its id, AvtimeRunLayout; a reader takes the id it found). */
  evalDirOf(runId: string) {
    return path.join(this.evalRoot, runId);
  }
  summaryOf(runId: string) {
    return path.join(this.evalDirOf(runId), 'summary.json');
  }
  summaryCiOf(runId: string) {
    return path.join(this.evalDirOf(runId), 'summary_ci.json');
  }
  runConfigOf(runId: string) {
    return path.join(this.evalDirOf(runId), 'run_config.json');
  }
  traceOf(runId: string, direction: 't2e' | 'e2t' | 'e2e') {
    return path.join(this.evalDirOf(runId), `${direction}_trace.jsonl`);
  }
  /** What this run was started with (options, canonical or not), read back by a resume (./runStart.ts). */
  get runStart() {
    return path.join(this.stateDir, 'avtime-run.json');
  }
  /** One line per server start: what run_config.json records about the servers (./servers.ts). */
  get serversLog() {
    return path.join(this.stateDir, 'avtime-servers.jsonl');
  }
  /** The servers a launch started (the engine's serving/leftovers.ts), so a run after a kill -9 can stop them. */
  get serversRecord() {
    return serversFile(this);
  }
  get launchParams() {
    return path.join(this.logsDir, 'launch_params.txt');
  }
  /** The target pre-flight's counts (SPEC-AVTIME §3). */
  get preflight() {
    return path.join(this.logsDir, 'preflight.json');
  }
  vllmLog(id: string) {
    return path.join(this.logsDir, `vllm_${id}.log`);
  }
}

/** One run's paths: the output root's, and the run's own `eval/<RUN_ID>/`. */
export class AvtimeRunLayout extends AvtimeOutputRoot {
  constructor(
    root: string,
    readonly runId: string,
  ) {
    super(root);
    checkRunId(runId);
  }
  get evalDir() {
    return this.evalDirOf(this.runId);
  }
  get runConfig() {
    return this.runConfigOf(this.runId);
  }
  trace(direction: 't2e' | 'e2t' | 'e2e') {
    return this.traceOf(this.runId, direction);
  }
  get summary() {
    return this.summaryOf(this.runId);
  }
  /** The six scores' bootstrap intervals and the audio − visual differences, beside summary.json (issue 19). */
  get summaryCi() {
    return this.summaryCiOf(this.runId);
  }
}
