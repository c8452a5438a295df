// The Data runbook's cells (issue 26 point 6): each step is the data verb a user would type, with the settings'
// paths written out and each step's output the next one's input, and the runbook's step parser takes them.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { avtimeRunbook } from '../../../../../src/extension/protocols/avtime/avtimeRunbook';
import { DATA_STEPS, dataReportTarget, dataRunbookCells, dataRunRoot, type DataPaths } from '../../../../../src/extension/protocols/avtime/data/dataRunbook';
import { parseRunbook, parseStep, stringifyRunbook } from '../../../../../src/extension/runbook/format';

const PATHS: DataPaths = {
  source: 'data/AVTime 50K/all.jsonl',
  videos: '/media/videos',
  outputRoot: 'outputs/avtime-data',
  benchRoot: 'data/AVTime-Bench',
  captionBaseUrl: 'http://127.0.0.1:8000/v1',
};

describe('the AVTime Data runbook', () => {
  const steps = () => dataRunbookCells(PATHS).filter((c) => c.kind === 'step');

  it('is split → cut → caption → build-sft → build-grpo, each `fpsweep avtime <verb>` with its flags and paths', () => {
    assert.deepEqual(
      steps().map((s) => s.value),
      [
        'fpsweep avtime split --source "data/AVTime 50K/all.jsonl" --output-root outputs/avtime-data/split --derive-test-ids --test-size 300 ' +
          '--expected-rows 49977',
        'fpsweep avtime cut --input-root /media/videos --output-root outputs/avtime-data/clips --cutter builtin',
        'fpsweep avtime caption outputs/avtime-data/clips --base-url http://127.0.0.1:8000/v1',
        'fpsweep avtime build-sft --avtime-jsonl outputs/avtime-data/split/train.jsonl --bench-root data/AVTime-Bench ' +
          '--output-jsonl outputs/avtime-data/sft/train_sft.jsonl --report-json outputs/avtime-data/sft/sft_report.json',
        'fpsweep avtime build-grpo --input-jsonl outputs/avtime-data/sft/train_sft.jsonl --output-jsonl outputs/avtime-data/grpo/train_grpo.jsonl ' +
          '--report-json outputs/avtime-data/grpo/grpo_report.json',
      ],
    );
    // Each step under a heading of its own, in the order the data flows.
    assert.deepEqual(
      dataRunbookCells(PATHS)
        .filter((c) => c.kind === 'markdown')
        .map((c) => c.value.split('\n')[0]),
      ['# AVTime data', '## D1. Split', '## D2. Cut', '## D3. Caption', '## D4. SFT rows', '## D5. GRPO rows'],
    );
  });

  it("parses as AVTime's steps (a path with a space stays one word), and survives the runbook file", () => {
    const parsed = steps().map((s) => parseStep(s.value, [avtimeRunbook]));
    assert.deepEqual(
      parsed.map((p) => [p.verb, p.args[0]]),
      DATA_STEPS.map((s) => ['avtime', s]),
    );
    assert.deepEqual(parsed[0].args.slice(1, 3), ['--source', 'data/AVTime 50K/all.jsonl']);
    const book = { fpsweepRunbook: 1 as const, cells: dataRunbookCells(PATHS) };
    assert.deepEqual(parseRunbook(stringifyRunbook(book)), book);
    assert.throws(
      () => parseStep('fpsweep avtime splitt --source x', [avtimeRunbook]),
      /unknown avtime step 'splitt': one of .*split, cut, caption, build-sft, build-grpo/,
    );
  });

  it('opens the split folder and the builders’ reports after their steps, resolved in the folder the step ran in', () => {
    const args = (cell: number) => parseStep(steps()[cell].value, [avtimeRunbook]).args.slice(1);
    assert.equal(dataReportTarget('split', args(0), '/ws'), path.resolve('/ws/outputs/avtime-data/split'));
    assert.equal(dataReportTarget('split', ['--source', 'x'], '/ws'), path.resolve('/ws/outputs/avtime-50k-split'));
    assert.equal(dataReportTarget('cut', args(1), '/ws'), null);
    assert.equal(dataReportTarget('caption', args(2), '/ws'), null);
    assert.equal(dataReportTarget('build-sft', args(3), '/ws'), path.resolve('/ws/outputs/avtime-data/sft/sft_report.json'));
    assert.equal(dataReportTarget('build-grpo', args(4), '/ws'), path.resolve('/ws/outputs/avtime-data/grpo/grpo_report.json'));
  });

  it('gives the progress tree the run roots its steps made: the cut’s output root, the videos root captioned', () => {
    const args = (cell: number) => parseStep(steps()[cell].value, [avtimeRunbook]).args.slice(1);
    assert.deepEqual(args(1), ['--input-root', '/media/videos', '--output-root', 'outputs/avtime-data/clips', '--cutter', 'builtin']);
    assert.equal(dataRunRoot('cut', args(1), '/ws'), path.resolve('/ws/outputs/avtime-data/clips'));
    assert.equal(dataRunRoot('cut', ['--input-root', 'v', '--output-root', '/abs/out', '--cutter', 'x'], '/ws'), path.resolve('/abs/out'));
    assert.equal(dataRunRoot('cut', ['--input-root', 'v'], '/ws'), null);
    assert.equal(dataRunRoot('caption', args(2), '/ws'), path.resolve('/ws/outputs/avtime-data/clips'));
    assert.equal(dataRunRoot('caption', ['--base-url', 'http://h:1', 'root'], '/ws'), path.resolve('/ws/root'));
    for (const stage of ['split', 'build-sft', 'build-grpo'] as const) assert.equal(dataRunRoot(stage, args(DATA_STEPS.indexOf(stage)), '/ws'), null);
  });
});
