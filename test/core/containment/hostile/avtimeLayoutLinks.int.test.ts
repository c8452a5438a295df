// Issue 42, point 5, for the AVTime run type: generated from its layout modules. AvtimeRunLayout (the seed's output
// tree and the engine's `.fpsweep/` state, written by `avtime run`), BenchRoot (what `avtime inputs` writes in the
// bench root) and DvcLayout (`avtime dvc`'s output folder). Each path a verb writes gets a link planted at it before
// the verb runs: exit 2 naming the link, no stack trace, nothing outside changed (a file written whole replaces the
// link instead). The seed tree's files are planted in a run whose target inference failed (its pre-flight refused, a
// non-canonical run, made once and copied) and written by its `--resume`: a fresh run refuses a root that holds
// anything. A member added to a layout and not classified here fails its first test; a path a clean run writes that
// no member names fails the next ones. One video, one target shard: the videos are probed with ffprobe.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { judgeStub, makeBench, TARGET_ANSWERS, targetStub, videoOf } from '../../protocols/avtime/stages/benchFixture';
import { startStub, type Stub } from '../../protocols/avtime/stages/httpStub';
import { buildStandin, FAKE_VLLM } from '../../serving/helpers';
import { freePortRange, withEnv } from '../../protocols/fp/sweep/helpers';
import { AvtimeRunLayout, BenchRoot } from '../../../../src/core/protocols/avtime/stages/layout';
import { DvcLayout } from '../../../../src/core/protocols/avtime/data/dvc/layout';
import { hostileDir, removeHostileDirs } from './hostileFiles';
import { describeLayoutLinks, type LayoutTable } from './layoutLinks';
import { stopFile } from '../../../../src/core/runner/runRoot';

const RUN_ID = 'r1';
const TARGET_MODEL = 'Qwen/Qwen3-Omni-30B-A3B-Instruct';
const STANDIN = { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0', FPSWEEP_STANDIN_TARGET: undefined, FPSWEEP_STANDIN_ROLE: undefined, VLLM_BIN: FAKE_VLLM };
const NOT_EMPTY = /already exists and is not empty: a run's artifacts are immutable/;

/** The fixture's bench root cut to its first video (and that video's queries): one probe a run, one target shard. */
function oneVideoBench(root: string): string {
  makeBench(root);
  const keep: Record<string, (line: string, i: number) => boolean> = {
    'test.jsonl': (_, i) => i === 0,
    'inventory.jsonl': (_, i) => i === 0,
    'benchmark_reference_manifest.jsonl': (l) => l.includes('"vid_000"'),
  };
  for (const [name, kept] of Object.entries(keep)) {
    const file = path.join(root, name);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).filter(kept);
    fs.writeFileSync(file, lines.map((l) => l + '\n').join(''));
  }
  return root;
}

let target: Stub;
let judge: Stub;
let bench: string;
/** A run whose target pre-flight was refused (exit 1, before any shard): copied into a root to be resumed. */
let unfinished: string;

async function avtime(root: string, targetUrl: string, extra: string[]) {
  const args = ['avtime', 'run', '--bench-root', bench, '--output-root', root, '--run-id', RUN_ID, '--judge-endpoint', judge.url];
  return runCli([...args, '--target-endpoints', targetUrl, ...extra]);
}

/** A run against running servers, detached (the worker's log), with a launched stand-in target, or the resume of the
 * unfinished run copied into the root (`resumable`). */
type Verb = 'run' | 'detach' | 'launch' | 'resume';

async function run(verb: Verb, root: string) {
  if (verb === 'launch') {
    const port = String(await freePortRange(1));
    const launched = ['--target-model', TARGET_MODEL, '--target-gpus', '0', '--target-tp', '1', '--target-base-port', port];
    const args = ['avtime', 'run', '--bench-root', bench, '--output-root', root, '--run-id', RUN_ID, '--judge-endpoint', judge.url];
    return withEnv(STANDIN, () => runCli([...args, ...launched]));
  }
  return avtime(root, target.url, verb === 'detach' ? ['--detach'] : verb === 'resume' ? ['--resume'] : []);
}

const resumable = (l: AvtimeRunLayout) => fs.cpSync(unfinished, l.root, { recursive: true });
/** A file or folder of the seed's tree: planted in the unfinished run, written by its `--resume`. */
const seed = (at: (l: AvtimeRunLayout) => string, kind: 'file' | 'dir', more: { replaced?: true; each?: (l: AvtimeRunLayout) => string[] } = {}) => ({
  at,
  kind,
  verb: 'resume' as const,
  prepare: resumable,
  ...more,
});
const sameAs = (member: string) => ({ readOnly: `the same path as \`${member}\` (a reader's spelling, by the run id it found): planted there` });

const RUN_LAYOUT: LayoutTable<AvtimeRunLayout, Verb> = {
  root: { readOnly: 'the output root itself: the user names it, every check starts there' },
  runId: { readOnly: 'not a path: the run id' },
  stateDir: { at: (l) => l.stateDir, kind: 'dir', verb: 'run' },
  lockFile: { at: (l) => l.lockFile, kind: 'file', verb: 'run' },
  statusFile: { at: (l) => l.statusFile, kind: 'file', verb: 'run', replaced: true },
  logsDir: { at: (l) => l.logsDir, kind: 'dir', verb: 'run' },
  runnerLog: { at: (l) => l.runnerLog, kind: 'file', verb: 'detach' },
  runStart: { at: (l) => l.runStart, kind: 'file', verb: 'run' },
  serversLog: { at: (l) => l.serversLog, kind: 'file', verb: 'run' },
  serversRecord: { at: (l) => l.serversRecord, kind: 'file', verb: 'launch', replaced: true },
  launchParams: { at: (l) => l.launchParams, kind: 'file', verb: 'launch' },
  vllmLog: { at: (l) => l.vllmLog('target0'), kind: 'file', verb: 'launch' },
  preflight: { at: (l) => l.preflight, kind: 'file', verb: 'run', replaced: true },
  // Written only by a run that builds the target inputs, into a new root; a resume never builds them again.
  targetInputsReport: { at: (l) => l.targetInputsReport, kind: 'file', verb: 'run', refusedAs: NOT_EMPTY },
  inferenceDir: seed((l) => l.inferenceDir, 'dir'),
  shardDir: seed((l) => l.shardDir(0), 'dir'),
  rawPredictions: seed((l) => l.rawPredictions(0), 'file'),
  shardSummary: seed((l) => l.shardSummary(0), 'file'),
  predictions: seed((l) => l.predictions, 'file', { replaced: true }),
  predictionFailures: seed((l) => l.predictionFailures, 'file', { replaced: true }),
  predictionReport: seed((l) => l.predictionReport, 'file'),
  semanticRequests: seed((l) => l.semanticRequests, 'file'),
  semanticResponses: seed((l) => l.semanticResponses, 'file'),
  semanticFailures: seed((l) => l.semanticFailures, 'file'),
  semanticReport: seed((l) => l.semanticReport, 'file'),
  evalRoot: seed((l) => l.evalRoot, 'dir'),
  evalDir: seed((l) => l.evalDir, 'dir'),
  runConfig: seed((l) => l.runConfig, 'file'),
  trace: seed((l) => l.trace('e2t'), 'file', { replaced: true, each: (l) => (['t2e', 'e2t', 'e2e'] as const).map((d) => l.trace(d)) }),
  summary: seed((l) => l.summary, 'file', { replaced: true }),
  summaryCi: seed((l) => l.summaryCi, 'file', { replaced: true }),
  evalDirOf: sameAs('evalDir'),
  runConfigOf: sameAs('runConfig'),
  traceOf: sameAs('trace'),
  summaryOf: sameAs('summary'),
  summaryCiOf: sameAs('summaryCi'),
};

describeLayoutLinks({
  title: 'hostile AVTime output root: a link at every path `avtime run` writes (issue 42, point 5, from AvtimeRunLayout)',
  layoutOf: (root) => new AvtimeRunLayout(root, RUN_ID),
  table: RUN_LAYOUT,
  beyond: { "the engine's stopFile": { at: (l) => stopFile(l), kind: 'file', verb: 'run' } },
  timeoutMs: 120_000,
  setUp: async () => {
    await buildStandin();
    target = await targetStub();
    judge = await judgeStub();
    bench = oneVideoBench(path.join(hostileDir('avtime-layout-bench-'), 'bench'));
    // The pre-flight's request (return_token_ids) refused: the run ends before any shard, resumable (--keep-going).
    const refusing = await startStub((b) => (b.return_token_ids ? { status: 400, error: 'refused' } : { text: TARGET_ANSWERS[videoOf(b)] ?? '' }));
    unfinished = path.join(hostileDir('avtime-layout-unfinished-'), 'out');
    const r = await avtime(unfinished, refusing.url, ['--keep-going']).finally(() => refusing.close());
    if (r.code !== 1) throw new Error(`the unfinished run: exit ${r.code}\n${r.out}${r.err}`);
  },
  tearDown: async () => {
    await Promise.all([target, judge].map((s) => s?.close()));
    removeHostileDirs();
  },
  freshRoot: async () => {
    const root = path.join(hostileDir('avtime-layout-'), 'out');
    fs.mkdirSync(root);
    return root;
  },
  run,
  cleanRuns: [['run'], ['launch']],
});

const BENCH_LAYOUT: LayoutTable<BenchRoot, 'inputs'> = {
  root: { readOnly: 'the bench root itself: the user names it' },
  test: { readOnly: 'an input, read only' },
  inventory: { readOnly: 'an input, read only' },
  manifest: { readOnly: 'an input, read only' },
  promptsDir: { readOnly: 'an input, read only' },
  prompt: { readOnly: 'an input, read only' },
  // Built only when absent: a link to a file is an input present, read where the user points (docs/SECURITY.md);
  // a link to a file not there yet would be made outside by a write by path.
  targetInputs: { at: (l) => l.targetInputs, kind: 'dangling', verb: 'inputs', replaced: true },
  targetInputsReport: { at: (l) => l.targetInputsReport, kind: 'file', verb: 'inputs', replaced: true },
};

describeLayoutLinks({
  title: 'hostile AVTime bench root: a link at every path `avtime inputs` writes (issue 42, point 5, from BenchRoot)',
  layoutOf: (root) => new BenchRoot(root),
  table: BENCH_LAYOUT,
  timeoutMs: 60_000,
  tearDown: async () => removeHostileDirs(),
  freshRoot: async () => oneVideoBench(path.join(hostileDir('avtime-layout-inputs-'), 'bench')),
  run: (_, root) => runCli(['avtime', 'inputs', '--bench-root', root]),
  cleanRuns: [['inputs']],
});

/** dvc against a running target, or with the stand-in launched as the target (--model-path). */
type DvcVerb = 'dvc' | 'launch';
let dvcBench: string;

async function dvc(verb: DvcVerb, root: string) {
  const common = ['avtime', 'dvc', '--jsonl', new BenchRoot(dvcBench).targetInputs, '--output-dir', root, '--bench-root', dvcBench];
  if (verb === 'dvc') return runCli([...common, '--model-name', 'target-model', '--base-url', target.url]);
  const launched = ['--model-name', 'avtime-model', '--model-path', TARGET_MODEL, '--gpus', '0', '--tp', '1', '--base-port', String(await freePortRange(1))];
  return withEnv(STANDIN, () => runCli([...common, ...launched]));
}

const DVC_LAYOUT: LayoutTable<DvcLayout, DvcVerb> = {
  root: { readOnly: 'the output folder itself: the user names it, every check starts there' },
  stateDir: { at: (l) => l.stateDir, kind: 'dir', verb: 'dvc' },
  lockFile: { at: (l) => l.lockFile, kind: 'file', verb: 'dvc' },
  statusFile: { readOnly: 'dvc keeps no status file (its run session has no status reporter): nothing writes it' },
  logsDir: { at: (l) => l.logsDir, kind: 'dir', verb: 'launch' },
  runnerLog: { readOnly: 'dvc has no --detach: no worker writes a log there' },
  rawPredictions: { at: (l) => l.rawPredictions, kind: 'file', verb: 'dvc' },
  summary: { at: (l) => l.summary, kind: 'file', verb: 'dvc', replaced: true },
  serversRecord: { at: (l) => l.serversRecord, kind: 'file', verb: 'launch', replaced: true },
  launchParams: { at: (l) => l.launchParams, kind: 'file', verb: 'launch' },
  serversLog: { at: (l) => l.serversLog, kind: 'file', verb: 'dvc' },
  vllmLog: { at: (l) => l.vllmLog('target0'), kind: 'file', verb: 'launch' },
};

describeLayoutLinks({
  title: 'hostile dvc output folder: a link at every path `avtime dvc` writes (issue 42, point 5, from DvcLayout)',
  layoutOf: (root) => new DvcLayout(root),
  table: DVC_LAYOUT,
  beyond: { "the engine's stopFile": { at: (l) => stopFile(l), kind: 'file', verb: 'dvc' } },
  timeoutMs: 120_000,
  setUp: async () => {
    await buildStandin();
    target = await targetStub();
    dvcBench = oneVideoBench(path.join(hostileDir('avtime-layout-dvc-'), 'bench'));
    const built = await runCli(['avtime', 'inputs', '--bench-root', dvcBench]);
    if (built.code !== 0) throw new Error(built.out + built.err);
  },
  tearDown: async () => {
    await target?.close();
    removeHostileDirs();
  },
  freshRoot: async () => {
    const root = path.join(hostileDir('avtime-layout-dvc-'), 'out');
    fs.mkdirSync(root);
    return root;
  },
  run: dvc,
  cleanRuns: [['dvc'], ['launch']],
});
