// Issue 42, point 5: every containment refusal is exit 2 without a stack trace. Generated from the FP run type's
// layout module (PackageLayout): each of its paths is either written by a verb, and then gets a link planted at it
// (a file link to a file outside, a folder link to a folder outside) before that verb runs, which must end with
// exit 2 naming the link, no stack trace and nothing outside changed; or it is an input the verbs only read, said
// here with why. A path added to the layout and not listed here fails the first test, so the list stays whole.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../protocols/fp/sample/fixture';
import { FAKE_VLLM, freePortRange, startStandin, withEnv, type Standin } from '../../protocols/fp/sweep/helpers';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { runSweep } from '../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../src/core/protocols/fp/sweep/runOptions';
import { exitFor } from '../../../../src/core/errors';
import { returnsNames } from '../../../../src/core/protocols/fp/returns/tarball';
import { removeHostileDirs } from './hostileFiles';
import { describeLayoutLinks, type LayoutTable, type Outcome } from './layoutLinks';
import { stopFile } from '../../../../src/core/runner/runRoot';
import { MAX_RECORD_BYTES } from '../../../../src/core/runner/hostCpuRecord';

const BENCH = 'MVBench';
const COND = 'v_8_s224';

type Verb = 'run' | 'launch' | 'report' | 'return' | 'merge' | 'prepare';

/** The tarball `return` names today on this host (a test run across midnight would miss it). */
const tarballName = () => returnsNames(os.hostname(), new Date()).tarball;
/** A package with results to return: a run first. */
async function returnable(l: PackageLayout): Promise<void> {
  const r = await runVerb('run', l.root);
  if (r.code !== 0) throw new Error(r.out + r.err);
}

/** The first shard of the package's videos manifest (`prepare` extracts it through its staging folder). */
const firstShard = (l: PackageLayout): string => JSON.parse(fs.readFileSync(l.videosManifest, 'utf8')).shards[0].file;
/** A package to prepare: its store emptied, so every shard is hashed and extracted again. */
const unprepared = (l: PackageLayout): void => fs.rmSync(l.storeDir, { recursive: true, force: true });

/** A record past its bound: the run sets it aside at start (runner/hostCpuRecord.ts's MAX_RECORD_BYTES). */
function largeHostCpuRecord(l: PackageLayout): void {
  fs.mkdirSync(l.stateDir, { recursive: true });
  fs.writeFileSync(l.hostCpuRecord, '\n'.repeat(MAX_RECORD_BYTES + 1));
}
/** A lock cut short by a crash: the run takes it over, moving it aside first (runner/lock.ts). */
function tornLock(l: PackageLayout): void {
  fs.mkdirSync(l.stateDir, { recursive: true });
  fs.writeFileSync(l.lockFile, '');
}

/** Every member of PackageLayout: written (planted below) or read only (why). */
const LAYOUT: LayoutTable<PackageLayout, Verb> = {
  root: { readOnly: 'the package root itself: the user names it, every check starts there' },
  samplesDir: { readOnly: 'items: an input, read only (bounded parsing)' },
  samplesFile: { readOnly: 'items: an input, read only' },
  scopeSummary: { readOnly: 'an input, read only' },
  manifest: { readOnly: 'an input, read only' },
  storeDir: { readOnly: 'written by prepare only (test/core/containment/hostile/prepareLinks.int.test.ts); the run reads videos' },
  videoDir: { readOnly: 'written by prepare only; read by the run' },
  videoFile: { readOnly: 'read by the run (ffmpeg); written by prepare only' },
  metaFile: { readOnly: 'read by the run (bounded parsing); written by prepare only' },
  videosDir: { readOnly: 'shards: an input, read only' },
  videosManifest: { readOnly: 'an input, read only' },
  shardFile: { readOnly: 'shards: an input, read only (sha256 checked)' },
  shardStaging: { at: (l) => l.shardStaging(firstShard(l)), kind: 'dir', verb: 'prepare', prepare: unprepared },
  verifiedCache: { at: (l) => l.verifiedCache, kind: 'file', verb: 'prepare', prepare: unprepared, replaced: true },
  resultsDir: { at: (l) => l.resultsDir, kind: 'dir', verb: 'run' },
  resultsCsv: { at: (l) => l.resultsCsv, kind: 'file', verb: 'run' },
  resultsCsvTorn: {
    at: (l) => l.resultsCsvTorn,
    kind: 'file',
    verb: 'run',
    prepare: (l) => fs.appendFileSync(l.resultsCsv, 'MVBench,torn'), // a torn last line: moved to .torn at start
  },
  rawDir: { at: (l) => l.rawDir(COND), kind: 'dir', verb: 'run' },
  rawFile: { at: (l) => l.rawFile(COND, BENCH), kind: 'file', verb: 'run' },
  dataLogsDir: { at: (l) => l.dataLogsDir, kind: 'dir', verb: 'run' },
  timingLog: { at: (l) => l.timingLog, kind: 'file', verb: 'run' },
  failuresLog: { at: (l) => l.failuresLog, kind: 'file', verb: 'run' },
  logsDir: { at: (l) => l.logsDir, kind: 'dir', verb: 'run' },
  vllmLog: { at: (l) => l.vllmLog(0), kind: 'file', verb: 'launch' },
  runnerLog: { at: (l) => l.runnerLog, kind: 'file', verb: 'run' },
  launchParams: { at: (l) => l.launchParams, kind: 'file', verb: 'launch' },
  mergesLog: { at: (l) => l.mergesLog, kind: 'file', verb: 'merge' },
  shardLogsDir: { at: (l) => l.shardLogsDir(path.basename(shard)), kind: 'dir', verb: 'merge', tree: true },
  findingsFile: { at: (l) => l.findingsFile, kind: 'file', verb: 'return', prepare: returnable, replaced: true },
  returnsTarball: { at: (l) => l.returnsTarball(tarballName()), kind: 'file', verb: 'return', prepare: returnable, replaced: true },
  returnsSha256: { at: (l) => l.returnsSha256, kind: 'file', verb: 'return', prepare: returnable, replaced: true },
  serversRecord: { at: (l) => l.serversRecord, kind: 'file', verb: 'launch', replaced: true },
  runIdentity: { at: (l) => l.runIdentity, kind: 'file', verb: 'run' },
  preflightRecord: { at: (l) => l.preflightRecord, kind: 'file', verb: 'run', replaced: true },
  metaCache: { at: (l) => l.metaCache, kind: 'file', verb: 'run', replaced: true },
  stateDir: { at: (l) => l.stateDir, kind: 'dir', verb: 'run' },
  lockFile: { at: (l) => l.lockFile, kind: 'file', verb: 'run' },
  statusFile: { at: (l) => l.statusFile, kind: 'file', verb: 'run', replaced: true },
  hostCpuRecord: { at: (l) => l.hostCpuRecord, kind: 'file', verb: 'run' },
  hostCpuRecordAside: { at: (l) => l.hostCpuRecordAside, kind: 'file', verb: 'run', prepare: largeHostCpuRecord },
  lockAside: { at: (l) => l.lockAside, kind: 'file', verb: 'run', prepare: tornLock },
  framesPathsRecord: { at: (l) => l.framesPathsRecord, kind: 'file', verb: 'run' },
  frameStoreDir: { at: (l) => l.frameStoreDir, kind: 'dir', verb: 'run', tree: true },
  reportsDir: { at: (l) => l.reportsDir, kind: 'dir', verb: 'report', tree: true },
};

let server: Standin;
/** A package that ran (no --shard): the copy `merge` merges from, logged as logs/shards/<its folder's name>/. */
let shard: string;

/** `run` against the stand-in, a run with launched servers (the stand-in as vLLM) on free ports, or `report`. */
async function runVerb(verb: Verb, root: string): Promise<Outcome> {
  if (verb === 'report') return runCli(['report', '--package', root]);
  if (verb === 'return') return runCli(['return', '--package', root]);
  if (verb === 'prepare') return runCli(['prepare', '--package', root]);
  if (verb === 'merge') return runCli(['merge', '--into', root, '--allow-partial', shard]);
  if (verb === 'run') return runCli(['run', '--package', root, '--bench', BENCH, '--conds', COND, '--endpoints', server.url]);
  // The run as the CLI runs it, its end as the CLI ends.
  const opts = { package: root, benchmarks: [BENCH], conditions: [COND], ngpu: 1, basePort: await freePortRange(1), vllmBin: FAKE_VLLM };
  return withEnv({ VLLM_BIN: FAKE_VLLM }, () => runSweep(runOptionsSchema.parse(opts), defaultSweepDeps)).then(
    (res) => ({ code: res.exitCode, out: res.summary, err: '' }),
    (err: unknown) => ({ code: exitFor(err).code, out: '', err: exitFor(err).text }),
  );
}

describeLayoutLinks({
  title: 'hostile FP package: a link at every path the verbs write (issue 42, point 5, from PackageLayout)',
  layoutOf: (root) => new PackageLayout(root),
  table: LAYOUT,
  beyond: {
    "the engine's stopFile": { at: (l) => stopFile(l), kind: 'file', verb: 'run' },
    "a folder of a merged shard's logs": { at: (l) => path.join(l.shardLogsDir(path.basename(shard)), 'extra'), kind: 'dir', verb: 'merge' },
  },
  timeoutMs: 600_000,
  setUp: async function (this: Mocha.Context) {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    server = await startStandin();
    shard = (await copySamplePackage()).root;
    const ran = await runVerb('run', shard);
    if (ran.code !== 0) throw new Error(ran.out + ran.err);
    // A folder in its logs, which merge copies into the target's logs/shards/<name>/.
    fs.mkdirSync(path.join(shard, 'logs', 'extra'));
    fs.writeFileSync(path.join(shard, 'logs', 'extra', 'note.log'), 'a note\n');
  },
  tearDown: async () => {
    await server?.stop();
    removeHostileDirs();
  },
  freshRoot: async () => (await copySamplePackage()).root,
  run: runVerb,
  cleanRuns: [['launch', 'report', 'return'], ['merge'], ['prepare']],
});
