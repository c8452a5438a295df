// Paths inside a run package (SPEC §1). Every segment that comes from data is checked first.
import * as path from 'node:path';
import { serversFile } from '../../../serving/leftovers';
import { runIdentityFile } from '../../../runner/identity';
import { isPlainName } from '../../../package/names';
import { InputError } from '../../../errors';
import { previousRecord } from '../../../runner/hostCpuRecord';
import { staleLockAside } from '../../../runner/lock';

function segment(s: string, what: string): string {
  if (!isPlainName(s)) throw new InputError(`${what} '${s}' is not a plain name`);
  return s;
}

export class PackageLayout {
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }
  get samplesDir() {
    return path.join(this.root, 'items', 'samples');
  }
  samplesFile(bench: string) {
    return path.join(this.samplesDir, `${segment(bench, 'benchmark')}.jsonl`);
  }
  get scopeSummary() {
    return path.join(this.root, 'items', 'scope_summary.json');
  }
  get manifest() {
    return path.join(this.root, 'manifest', 'manifest_subset.jsonl');
  }
  get storeDir() {
    return path.join(this.root, 'data', 'store', 'normalized');
  }
  videoDir(hash: string) {
    return path.join(this.storeDir, segment(hash, 'hash'));
  }
  videoFile(hash: string) {
    return path.join(this.videoDir(hash), 'video.mp4');
  }
  metaFile(hash: string) {
    return path.join(this.videoDir(hash), 'meta.json');
  }
  get videosDir() {
    return path.join(this.root, 'videos');
  }
  get videosManifest() {
    return path.join(this.videosDir, 'videos_manifest.json');
  }
  shardFile(file: string) {
    return path.join(this.videosDir, segment(file, 'shard file'));
  }
  /** Where `prepare` extracts a shard, this process's own, before its entries move into the store (prepare/extract.ts). */
  shardStaging(file: string) {
    return path.join(path.dirname(this.storeDir), '.staging', `${segment(file, 'shard file')}.${process.pid}`);
  }
  get resultsDir() {
    return path.join(this.root, 'results');
  }
  get resultsCsv() {
    return path.join(this.resultsDir, 'conditions_results.csv');
  }
  get resultsCsvTorn() {
    return path.join(this.resultsDir, 'conditions_results.csv.torn');
  }
  rawDir(condition: string) {
    return path.join(this.resultsDir, 'p1_raw', segment(condition, 'condition'));
  }
  rawFile(condition: string, bench: string) {
    return path.join(this.rawDir(condition), `${segment(bench, 'benchmark')}__DIAG_V.jsonl`);
  }
  get dataLogsDir() {
    return path.join(this.root, 'data', 'logs');
  }
  get timingLog() {
    return path.join(this.dataLogsDir, 'p1_timing.jsonl');
  }
  get failuresLog() {
    return path.join(this.dataLogsDir, 'failures.jsonl');
  }
  get logsDir() {
    return path.join(this.root, 'logs');
  }
  vllmLog(gpu: number) {
    return path.join(this.logsDir, `vllm_gpu${gpu}.log`);
  }
  get runnerLog() {
    return path.join(this.logsDir, 'runner.log');
  }
  /** One line per run: its identity, flags, knobs and endpoints (the engine's runner/identity.ts). */
  get runIdentity() {
    return runIdentityFile(this);
  }
  /** The run's pre-flight, written whole (sweep/preflight.ts). */
  get preflightRecord() {
    return path.join(this.logsDir, 'preflight.json');
  }
  /** The plan's cache of the videos' meta summaries (plan/metaCache.ts). */
  get metaCache() {
    return path.join(this.stateDir, 'plan-meta-cache.json');
  }
  /** The servers a launch started (the engine's serving/leftovers.ts), so a run after a kill -9 can stop them. */
  get serversRecord() {
    return serversFile(this);
  }
  get launchParams() {
    return path.join(this.logsDir, 'launch_params.txt');
  }
  /** One line per `fpsweep merge` into this package: what it merged from where. */
  get mergesLog() {
    return path.join(this.logsDir, 'merges.jsonl');
  }
  /** A merged shard's logs/, copied by `fpsweep merge` (its name: merge.ts's shardName). */
  shardLogsDir(name: string) {
    return path.join(this.logsDir, 'shards', segment(name, 'shard name'));
  }
  /** The findings `fpsweep return` writes under logs/, so the returns tarball carries them. */
  get findingsFile() {
    return path.join(this.logsDir, 'findings.json');
  }
  /** The returns tarball `fpsweep return` writes in the package root (its name: returns/tarball.ts's returnsNames). */
  returnsTarball(name: string) {
    return path.join(this.root, segment(name, 'returns tarball'));
  }
  /** The tarball's sha256 in sha256sum format, beside it. */
  get returnsSha256() {
    return path.join(this.root, 'fp_returns.sha256');
  }
  /** Our own working state (status file, lock, frame store, reports); not part of the returns. */
  get stateDir() {
    return path.join(this.root, '.fpsweep');
  }
  /** `prepare`'s remembered shard verifications, so a second prepare neither rehashes nor re-extracts (verifiedCache.ts). */
  get verifiedCache() {
    return path.join(this.stateDir, 'verified_shards.json');
  }
  get lockFile() {
    return path.join(this.stateDir, 'worker.lock');
  }
  /** A stale lock moved aside by a starter before it is removed (runner/lock.ts). */
  get lockAside() {
    return staleLockAside(this.lockFile);
  }
  get statusFile() {
    return path.join(this.stateDir, 'status.json');
  }
  /** The host's CPU over each run's requests, a line a window (runner/hostCpuRecord.ts; bounded, set aside when large). */
  get hostCpuRecord() {
    return path.join(this.stateDir, 'host_cpu.jsonl');
  }
  /** The record set aside (one generation) when a run starts on it above its bound (runner/hostCpuRecord.ts). */
  get hostCpuRecordAside() {
    return previousRecord(this.hostCpuRecord);
  }
  /** Where each run's frames were made and what a video took on each path, a line a run (`--frames-on auto`, issue 45). */
  get framesPathsRecord() {
    return path.join(this.stateDir, 'frames_paths.jsonl');
  }
  get frameStoreDir() {
    return path.join(this.stateDir, 'frames');
  }
  get reportsDir() {
    return path.join(this.stateDir, 'reports');
  }
}
