// The data stages against recompute.py, an independent Python reading of SPEC-AVTIME-DATA §1, §4, §5: the outputs
// byte for byte, the reports' numbers field by field, and a second run's bytes identical to the first's.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { makeCorpus, type Corpus } from './corpus';

const PYTHON = '/usr/bin/python3';
const RECOMPUTE = path.join(__dirname, 'recompute.py');
const py = (args: string[]) => execFileSync(PYTHON, [RECOMPUTE, ...args], { maxBuffer: 64 << 20 });
const cli = (args: string[]) => runCli(['avtime', ...args]);
const read = (p: string) => fs.readFileSync(p);
const SPLIT_FILES = ['train.jsonl', 'test.jsonl', 'test_ids.jsonl', 'split_manifest.json'];

describe('AVTime data stages = an independent Python recomputation of SPEC-AVTIME-DATA', function () {
  this.timeout(60_000);
  let c: Corpus;
  before(() => {
    c = makeCorpus();
  });

  async function split(out: string, mode: string[]) {
    const r = await cli(['split', '--source', c.source, '--output-root', out, '--expected-rows', String(c.retained), ...mode]);
    assert.equal(r.code, 0, r.err);
    return r;
  }

  it('split, derived mode: the four files byte for byte, and a second run gives the same bytes', async () => {
    const ours = path.join(c.dir, 'derived');
    const r = await split(ours, ['--derive-test-ids', '--test-size', '40']);
    assert.match(r.out, /321 train \+ 40 test of 361 retained \(416 read; excluded 28 other source, 27 unknown unlabeled\)/);
    const ref = fs.mkdtempSync(path.join(c.dir, 'py-'));
    py(['split', c.source, ref, String(c.retained), 'derived', '40', 'AVTime-50K-public-split-v1']);
    for (const f of SPLIT_FILES) assert.ok(read(path.join(ours, f)).equals(read(path.join(ref, f))), `${f} differs from the recomputation`);
    const again = path.join(c.dir, 'derived-again');
    await split(again, ['--derive-test-ids', '--test-size', '40']);
    // The manifest names the same source path; the output root is not in it, so all four files must match.
    for (const f of SPLIT_FILES) assert.ok(read(path.join(again, f)).equals(read(path.join(ours, f))), `${f} differs between two runs`);
    const m = JSON.parse(read(path.join(ours, 'split_manifest.json')).toString());
    assert.deepEqual(m.checks, { ids_disjoint: true, videos_disjoint: true, covers_retained: true });
    assert.equal(
      m.distributions.test.duration_bins.reduce((a: number, b: number) => a + b, 0),
      40,
    );
  });

  it('split, frozen mode: exactly the listed ids, byte for byte', async () => {
    const ours = path.join(c.dir, 'frozen');
    await split(ours, ['--test-ids', c.frozenIds]);
    const ref = fs.mkdtempSync(path.join(c.dir, 'py-'));
    py(['split', c.source, ref, String(c.retained), 'frozen', c.frozenIds]);
    for (const f of SPLIT_FILES) assert.ok(read(path.join(ours, f)).equals(read(path.join(ref, f))), `${f} differs from the recomputation`);
    assert.equal(read(path.join(ours, 'test.jsonl')).toString().trim().split('\n').length, 7);
  });

  it('build-sft then build-grpo: rows byte for byte (seeded and input order), report numbers equal, reruns identical', async () => {
    const train = path.join(c.dir, 'sft-split');
    await split(train, ['--derive-test-ids', '--test-size', '40']);
    const avtimeIn = path.join(c.dir, 'sft_in.jsonl');
    fs.writeFileSync(avtimeIn, Buffer.concat([read(path.join(train, 'train.jsonl')), read(c.sftExtras)]));
    const sft = async (tag: string) => {
      const out = path.join(c.dir, `${tag}.jsonl`);
      const report = path.join(c.dir, `${tag}.report.json`);
      const args = ['--avtime-jsonl', avtimeIn, '--longvale-jsonl', c.longvale, '--bench-root', c.benchRoot];
      const r = await cli(['build-sft', ...args, '--avtime-sample-count', '150', '--output-jsonl', out, '--report-json', report]);
      assert.equal(r.code, 0, r.err);
      return { out, report: JSON.parse(read(report).toString()) };
    };
    const ours = await sft('sft');
    const refOut = path.join(c.dir, 'py-sft.jsonl');
    const refSummary = path.join(c.dir, 'py-sft.summary.json');
    const prompts = path.join(c.benchRoot, 'prompts');
    py(['sft', avtimeIn, c.longvale, path.join(prompts, 'system.txt'), path.join(prompts, 'target.txt'), '150', '20260702', refOut, refSummary]);
    assert.ok(read(ours.out).equals(read(refOut)), 'sft rows differ from the recomputation');
    const s = JSON.parse(read(refSummary).toString());
    assert.deepEqual(ours.report.counts.skipped, s.skipped);
    assert.deepEqual(ours.report.counts.valid, s.valid);
    assert.equal(ours.report.counts.written, s.written);
    assert.equal(ours.report.avtime_sample_count.sampled, s.sampled);
    assert.deepEqual({ dropped: ours.report.events.dropped, deduplicated: ours.report.events.deduplicated }, s.events);
    assert.deepEqual(ours.report.events.per_row, s.per_row);
    assert.deepEqual({ system: ours.report.prompts.system.sha256, user: ours.report.prompts.user.sha256 }, s.prompt_sha256);
    // Every case the corpus holds was met: skips of each reason, drops of each kind, duplicates removed.
    assert.ok(s.skipped.avtime.no_video > 0 && s.skipped.avtime.no_duration > 0 && s.skipped.avtime.no_events > 0);
    assert.ok(s.events.dropped.no_caption > 0 && s.events.dropped.bad_time > 0 && s.events.deduplicated > 0);
    assert.ok(read(ours.out).equals(read((await sft('sft-again')).out)), 'two sft runs differ');

    for (const order of [[], ['--no-shuffle']]) {
      const tag = order.length ? 'input' : 'seeded';
      const out = path.join(c.dir, `grpo-${tag}.jsonl`);
      const r = await cli([
        'build-grpo',
        '--input-jsonl',
        ours.out,
        '--output-jsonl',
        out,
        '--report-json',
        path.join(c.dir, `grpo-${tag}.report.json`),
        ...order,
      ]);
      assert.equal(r.code, 0, r.err);
      const ref = path.join(c.dir, `py-grpo-${tag}.jsonl`);
      py(['grpo', ours.out, '20260729', order.length ? 'no-shuffle' : 'shuffle', ref]);
      assert.ok(read(out).equals(read(ref)), `grpo rows (${tag} order) differ from the recomputation`);
    }
    assert.ok(!read(path.join(c.dir, 'grpo-seeded.jsonl')).equals(read(path.join(c.dir, 'grpo-input.jsonl'))), 'the seeded order is not the input order');
  });
});
