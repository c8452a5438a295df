// Every command as a person types it (issue 41): from a folder of their own, relative paths with folders, a
// command run twice, a typo in a folder or a flag. Each case runs the CLI (main, as `fpsweep` does) with the cwd set
// to a temp folder and the paths as typed; each failed on the code before issue 41 (docs/CLI.md's table says how).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Captured } from '../helpers/captureOutput';
import { treeOf, typed } from '../helpers/typed';
import { makeCorpus, type Corpus } from '../core/protocols/avtime/data/corpus';
import { tinyPackage } from '../helpers/tinyPackage';

const tmp = (name: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `typed-${name}-`)));

function noStack(r: Captured): void {
  assert.doesNotMatch(r.err, /\n\s+at .+:\d+:\d+\)?\n/, `a stack trace:\n${r.err}`);
}

describe('as typed: relative output paths land where they name, once (no doubled folders)', function () {
  this.timeout(60_000);
  let corpus: Corpus;
  let cwd: string;
  before(() => {
    corpus = makeCorpus(60);
    cwd = corpus.dir;
    fs.copyFileSync(corpus.source, path.join(cwd, 'all.jsonl'));
  });
  after(() => fs.rmSync(corpus.dir, { recursive: true, force: true }));

  const split = ['avtime', 'split', '--source', 'all.jsonl', '--derive-test-ids', '--test-size', '10', '--expected-rows', '0'];

  it('avtime split --output-root outputs/split writes outputs/split/, and its default outputs/avtime-50k-split', async () => {
    const r = await typed(cwd, [...split, '--output-root', 'outputs/split']);
    assert.equal(r.code, 0, r.err);
    assert.ok(fs.existsSync(path.join(cwd, 'outputs/split/train.jsonl')), treeOf(cwd).join('\n'));
    assert.ok(!fs.existsSync(path.join(cwd, 'outputs/outputs')), 'doubled: outputs/outputs/');
    const r2 = await typed(cwd, split);
    assert.equal(r2.code, 0, r2.err);
    assert.ok(fs.existsSync(path.join(cwd, 'outputs/avtime-50k-split/split_manifest.json')), treeOf(cwd).join('\n'));
  });

  it('avtime build-sft --output-jsonl data/sft/train.jsonl writes data/sft/train.jsonl; build-grpo ./out/./g.jsonl writes out/g.jsonl', async () => {
    const sft = ['avtime', 'build-sft', '--avtime-jsonl', 'outputs/split/train.jsonl', '--bench-root', path.relative(cwd, corpus.benchRoot)];
    const r = await typed(cwd, [...sft, '--output-jsonl', 'data/sft/train.jsonl', '--report-json', 'data/sft/report.json']);
    assert.equal(r.code, 0, r.err);
    assert.ok(fs.statSync(path.join(cwd, 'data/sft/train.jsonl')).size > 0);
    assert.ok(fs.existsSync(path.join(cwd, 'data/sft/report.json')));
    assert.ok(!fs.existsSync(path.join(cwd, 'data/sft/data')), 'doubled: data/sft/data/');
    const g = await typed(cwd, [
      'avtime',
      'build-grpo',
      '--input-jsonl',
      'data/sft/train.jsonl',
      '--output-jsonl',
      './out/./g.jsonl',
      '--report-json',
      'out/r.json',
    ]);
    assert.equal(g.code, 0, g.err);
    assert.ok(fs.existsSync(path.join(cwd, 'out/g.jsonl')) && fs.existsSync(path.join(cwd, 'out/r.json')), treeOf(cwd).join('\n'));
    assert.ok(!fs.existsSync(path.join(cwd, 'out/out')), 'doubled: out/out/');
  });

  it('run twice: the data verbs refuse their own outputs (immutable: exit 2 naming the flag), and create nothing', async () => {
    const before = treeOf(cwd);
    for (const args of [
      [...split, '--output-root', 'outputs/split'],
      ['avtime', 'build-sft', '--avtime-jsonl', 'outputs/split/train.jsonl', '--output-jsonl', 'data/sft/train.jsonl', '--report-json', 'data/sft/r2.json'],
      ['avtime', 'build-grpo', '--input-jsonl', 'data/sft/train.jsonl', '--output-jsonl', 'out/g.jsonl', '--report-json', 'out/r9.json'],
    ]) {
      const r = await typed(cwd, args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, /--output-(root|jsonl) .*already exists and is not empty: outputs are never overwritten/);
      noStack(r);
    }
    assert.deepEqual(treeOf(cwd), before);
  });

  it("avtime normalize in the seed's form: --output norm/predictions.jsonl writes norm/predictions.jsonl (not norm/norm/…)", async () => {
    const dir = tmp('normalize');
    try {
      fs.cpSync(path.join(__dirname, '..', 'fixtures', 'normalizeSeed'), path.join(dir, 'seed'), { recursive: true });
      const args = ['avtime', 'normalize', '--target-inputs', 'seed/target_inputs.jsonl', '--raw', 'seed/raw_predictions.jsonl'];
      const outs = ['--output', 'norm/predictions.jsonl', '--failures', 'norm/prediction_failures.jsonl', '--report', 'norm/prediction_report.json'];
      const r = await typed(dir, [...args, ...outs, '--model-id', 'm', '--protocol', 'longvale_train_dvc_v1', '--decoding-json', '{"temperature":0}']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /normalized 2 answers: 1 predictions .* 1 prediction failures/);
      assert.deepEqual(treeOf(path.join(dir, 'norm')), ['prediction_failures.jsonl', 'prediction_report.json', 'predictions.jsonl'], treeOf(dir).join('\n'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('as typed: a folder that is not the root the verb wants is refused before anything is created', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = tmp('roots');
    fs.mkdirSync(path.join(cwd, 'empty'));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  // A fresh absolute path no earlier run (or residue of one on old code) can have made.
  const absentRoot = `/nonexistent-fpsweep-${process.pid}-${Date.now().toString(36)}`;
  for (const args of [
    ['report', '--package', 'pakage'],
    ['report', '--package', 'empty'],
    ['report', '--package', `${absentRoot}/typo`],
    ['avtime', 'caption', 'empty', '--base-url', 'http://127.0.0.1:9'],
    ['avtime', 'caption', 'missing', '--base-url', 'http://127.0.0.1:9'],
    ['findings', '--package', 'empty'],
    ['doctor', '--package', 'empty'],
    ['avtime', 'inputs', '--bench-root', 'empty'],
  ]) {
    it(`fpsweep ${args.join(' ')}: exit 2 naming what was expected, nothing created`, async () => {
      const before = treeOf(cwd);
      const r = await typed(cwd, args);
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.err, /no such folder|is not (a run package|a videos root|a bench root)/);
      noStack(r);
      assert.deepEqual(treeOf(cwd), before);
      assert.ok(!fs.existsSync(absentRoot));
    });
  }
});

describe('as typed: flags named in their errors, negative numbers read as values, unknown names refused', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = tmp('flags');
    tinyPackage(path.join(cwd, 'pkg'));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  const cases: [string[], RegExp][] = [
    [
      ['findings', '--package', 'pkg', '--delta', 'abc'],
      /^fpsweep findings: --delta \(or FPSWEEP_FINDINGS_DELTA\) must be a number from 0\.01 to 100, got 'abc'/,
    ],
    [
      ['findings', '--package', 'pkg', '--delta', '-5'],
      /^fpsweep findings: --delta \(or FPSWEEP_FINDINGS_DELTA\) must be a number from 0\.01 to 100, got '-5'/,
    ],
    [['run', '--package', 'pkg', '--workers', '0'], /^fpsweep run: --workers \(or WORKERS\) must be a whole number from 1 to 100000, got '0'/],
    [['avtime', 'caption', 'pkg', '--backend', 'gemini', '--model', 'm', '--max-rpm', '-1'], /--max-rpm must be a whole number from 1 to 1000000, got '-1'/],
    [['avtime', 'caption', 'pkg', '--backend', 'claude'], /--backend must be one of vllm, gemini, got 'claude'/],
    [
      ['inspect', '--package', 'pkg', '--benchmark', 'MVBench', '--condition', 'v_999'],
      /--condition v_999: no such condition for MVBench .*conditions: .*v_32_s224/,
    ],
    [
      ['inspect', '--package', 'pkg', '--benchmark', 'NoSuch', '--condition', 'v_32'],
      /--benchmark: no benchmark NoSuch in the package .*its benchmarks: MVBench/,
    ],
    [['run', '--package', 'pkg', '--bench', 'NoSuch'], /^fpsweep run: --bench: no benchmark NoSuch in the package .*its benchmarks: MVBench\)\n$/],
  ];
  for (const [args, expected] of cases) {
    it(`fpsweep ${args.join(' ')}: exit 2, ${expected}`, async () => {
      const before = treeOf(cwd);
      const r = await typed(cwd, args);
      assert.equal(r.code, 2, r.out + r.err);
      assert.match(r.err, expected);
      assert.doesNotMatch(r.err, /ambiguous/);
      assert.doesNotMatch(r.out, /starting/);
      noStack(r);
      assert.deepEqual(treeOf(cwd), before, 'nothing created (no logs/run_identity.jsonl)');
    });
  }

  it('a bad environment knob is named second, after the flag it stands for', async () => {
    process.env.FPSWEEP_FINDINGS_DELTA = 'lots';
    try {
      const r = await typed(cwd, ['findings', '--package', 'pkg']);
      assert.equal(r.code, 2);
      assert.match(r.err, /FPSWEEP_FINDINGS_DELTA \(the environment's value for --delta\) must be a number from 0\.01 to 100, got 'lots'/);
    } finally {
      delete process.env.FPSWEEP_FINDINGS_DELTA;
    }
  });
});
