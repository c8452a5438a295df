// Issue 42, point 5, for the AVTime data verbs, whose outputs are named by flags: generated from their layouts
// (data/layout.ts: SplitOutputs for `split`, FileOutputs for `build-sft`, `build-grpo` and `normalize`). Each path a verb writes
// gets a link planted at it before the verb runs, to a file outside and dangling: exit 2 (naming the link, or
// refusing the non-empty file it points to), no stack trace, nothing outside changed, and nothing published. A clean
// run writes only the layout's paths. `train --dry-run` writes nothing: its output folder and dataset as links.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { makeCorpus, type Corpus } from '../../protocols/avtime/data/corpus';
import {
  normalizeOutputs,
  rowsOutputs,
  SplitOutputs,
  type FileOutputs,
  type NormalizeOutputs,
  type RowsOutputs,
} from '../../../../src/core/protocols/avtime/data/layout';
import { hostileDir, removeHostileDirs, snapshot } from './hostileFiles';
import { describeLayoutLinks, NO_STACK, plantLink, type LayoutTable, type LinkKind, type Outcome, type Written } from './layoutLinks';

let corpus: Corpus;
/** build-sft's AVTime rows (a split's train.jsonl) and build-grpo's one-round SFT rows (build-sft's output). */
let sftInput: string;
let grpoInput: string;
const NOT_EMPTY = /already exists and is not empty/;

async function ok(args: string[]): Promise<void> {
  const r = await runCli(['avtime', ...args]);
  if (r.code !== 0) throw new Error(r.out + r.err);
}

async function setUp(): Promise<void> {
  corpus = makeCorpus(40);
  const split = path.join(corpus.dir, 'split');
  await ok(['split', '--source', corpus.source, '--output-root', split, '--expected-rows', String(corpus.retained), '--derive-test-ids', '--test-size', '4']);
  sftInput = path.join(split, 'train.jsonl');
  grpoInput = path.join(corpus.dir, 'sft.jsonl');
  await ok(['build-sft', ...sftArgs(), '--output-jsonl', grpoInput, '--report-json', path.join(corpus.dir, 'sft.report.json')]);
}
const sftArgs = () => ['--avtime-jsonl', sftInput, '--bench-root', corpus.benchRoot, '--avtime-sample-count', '5'];

const tearDown = async () => {
  removeHostileDirs();
  fs.rmSync(corpus.dir, { recursive: true, force: true });
};

/** A member planted as a dangling link (a write by path would make the file outside) and, in `beyond`, as a link to
 * a non-empty file (or folder) outside: for a flag's path, refused as not empty by the flag's own check. */
function bothKinds<L, V extends string>(
  members: Record<string, { at: (l: L) => string; verb: V; flagged: boolean; tree?: true; outside?: LinkKind }>,
): { table: LayoutTable<L, V>; beyond: LayoutTable<L, V> } {
  const table: LayoutTable<L, V> = {};
  const beyond: LayoutTable<L, V> = {};
  for (const [name, m] of Object.entries(members)) {
    table[name] = { at: m.at, kind: 'dangling', verb: m.verb, ...(m.tree && { tree: m.tree }) };
    const file: Written<L, V> = { at: m.at, kind: m.outside ?? 'file', verb: m.verb };
    // A flag's path: its check reads through the link and refuses the non-empty file; a staging name: ours, refused.
    beyond[`${name}, to a ${m.outside ?? 'file'} outside`] = m.flagged ? { ...file, refusedAs: NOT_EMPTY } : file;
  }
  return { table, beyond };
}

/** A FileOutputs' members: each output's path (a flag's) and its staging name (ours). */
function fileOutputs<N extends string, V extends string>(names: readonly N[], verb: V) {
  return Object.fromEntries(
    names.flatMap((n) => [
      [`file.${n}`, { at: (l: FileOutputs<N>) => l.file[n], verb, flagged: true }],
      [`staging.${n}`, { at: (l: FileOutputs<N>) => l.staging[n], verb, flagged: false }],
    ]),
  );
}

const split = bothKinds<SplitOutputs, 'split'>({
  outputRoot: { at: (l) => l.outputRoot, verb: 'split', flagged: true, tree: true, outside: 'dir' },
  staging: { at: (l) => l.staging, verb: 'split', flagged: false },
});
describeLayoutLinks({
  title: 'hostile `avtime split` output: a link at every path it writes (issue 42, from SplitOutputs)',
  layoutOf: (root) => new SplitOutputs(path.join(root, 'split')),
  table: { ...split.table, root: { readOnly: 'the folder the user named --output-root in: every check starts there' } },
  beyond: split.beyond,
  timeoutMs: 60_000,
  setUp,
  tearDown,
  freshRoot: async () => hostileDir('data-split-'),
  run: (_verb, _root, l) =>
    runCli([
      'avtime',
      'split',
      '--source',
      corpus.source,
      '--output-root',
      l.outputRoot,
      '--expected-rows',
      String(corpus.retained),
      '--derive-test-ids',
      '--test-size',
      '4',
    ]),
  cleanRuns: [['split']],
});

/** A refusal publishes nothing: no output is left behind (another one's rename included), only the planted link. */
function nonePublishedOnRefusal(r: Outcome, outputs: string[]): Outcome {
  if (r.code !== 0) for (const p of outputs) assert.ok(fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? true, `${p} written on a refusal`);
  return r;
}

const rowsSuite = (verb: 'build-sft' | 'build-grpo', args: () => string[]) => {
  const t = bothKinds<RowsOutputs, typeof verb>(fileOutputs(['outputJsonl', 'reportJson'], verb));
  describeLayoutLinks({
    title: `hostile \`avtime ${verb}\` outputs: a link at every path it writes (issue 42, from RowsOutputs)`,
    layoutOf: (root) => rowsOutputs(path.join(root, 'rows.jsonl'), path.join(root, 'rows.report.json')),
    table: t.table,
    beyond: t.beyond,
    timeoutMs: 60_000,
    setUp,
    tearDown,
    freshRoot: async () => hostileDir(`data-${verb}-`),
    run: async (_verb, _root, l) =>
      nonePublishedOnRefusal(
        await runCli(['avtime', verb, ...args(), '--output-jsonl', l.file.outputJsonl, '--report-json', l.file.reportJson]),
        Object.values(l.file),
      ),
    cleanRuns: [[verb]],
  });
};
rowsSuite('build-sft', sftArgs);
rowsSuite('build-grpo', () => ['--input-jsonl', grpoInput]);

// `normalize` in the seed's form (test/fixtures/normalizeSeed, as test/cli/asTyped.test.ts types it): its three outputs.
const seed = path.join(__dirname, '..', '..', '..', 'fixtures', 'normalizeSeed');
const normalize = bothKinds<NormalizeOutputs, 'normalize'>(fileOutputs(['output', 'failures', 'report'], 'normalize'));
describeLayoutLinks({
  title: "hostile `avtime normalize` (the seed's form) outputs: a link at every path it writes (issue 42, from NormalizeOutputs)",
  layoutOf: (root) =>
    normalizeOutputs(path.join(root, 'predictions.jsonl'), path.join(root, 'prediction_failures.jsonl'), path.join(root, 'prediction_report.json')),
  table: normalize.table,
  beyond: normalize.beyond,
  timeoutMs: 60_000,
  tearDown: async () => removeHostileDirs(),
  freshRoot: async () => hostileDir('data-normalize-'),
  run: async (_verb, _root, l) =>
    nonePublishedOnRefusal(
      await runCli([
        'avtime',
        'normalize',
        '--target-inputs',
        path.join(seed, 'target_inputs.jsonl'),
        '--raw',
        path.join(seed, 'raw_predictions.jsonl'),
        '--output',
        l.file.output,
        '--failures',
        l.file.failures,
        '--report',
        l.file.report,
        '--model-id',
        'm',
        '--protocol',
        'longvale_train_dvc_v1',
        '--decoding-json',
        '{"temperature":0}',
      ]),
      Object.values(l.file),
    ),
  cleanRuns: [['normalize']],
});

describe('hostile `avtime train --dry-run`: it writes nothing, its output folder and dataset links included (issue 42)', function () {
  this.timeout(30_000);
  before(setUp);
  after(tearDown);
  for (const [what, kind] of [
    ['--output-dir as a dangling link', 'dangling'],
    ['--output-dir as a link to a folder outside', 'dir'],
  ] as const) {
    it(`${what}: exit 0, nothing written under the root or outside`, async () => {
      const root = hostileDir('data-train-');
      const dir = path.join(root, 'ckpt');
      const planted = plantLink(dir, kind as LinkKind);
      const before = snapshot(root);
      const r = await runCli(['avtime', 'train', 'sft', '--dry-run', '--model', 'm', '--dataset', grpoInput, '--output-dir', dir]);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, new RegExp(`--save ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.deepEqual(snapshot(root), before, 'nothing written under the root');
      assert.deepEqual(snapshot(planted.outside), planted.before, 'nothing outside changed');
    });
  }
  it('--dataset as a dangling link: exit 2 naming it, no stack trace, nothing made outside', async () => {
    const root = hostileDir('data-train-');
    const dataset = path.join(root, 'rows.jsonl');
    const planted = plantLink(dataset, 'dangling');
    const r = await runCli(['avtime', 'train', 'grpo', '--dry-run', '--model', 'm', '--dataset', dataset]);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.err, /--dataset \(or DATASET\) .*rows\.jsonl: no such file/);
    assert.doesNotMatch(r.out + r.err, NO_STACK);
    assert.deepEqual(snapshot(planted.outside), planted.before, 'nothing outside changed');
  });
});
