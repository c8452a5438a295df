import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAvtimeProgress } from '../../../../src/core/protocols/avtime/progress';
import { runAvtimeStep, type AvtimeStepHost } from '../../../../src/extension/protocols/avtime/avtimeSteps';
import type { StepIo } from '../../../../src/extension/runbook/steps';
import { avtimeSettingsSchema } from '../../../../src/extension/protocols/avtime/avtimeSettingsModel';
import { tmpDir } from '../../../core/protocols/avtime/stages/fixtures';
import { RUN_ID, writeRun } from '../../../core/protocols/avtime/runFixture';

describe('runbook avtime steps answered by the extension', () => {
  let outputs: string;
  let opened: string[];
  let dataOpened: string[];
  let followed: string[];
  let host: AvtimeStepHost;
  const io = (): StepIo & { text: string } => {
    const o = {
      text: '',
      distDir: '/nonexistent-dist',
      env: async () => ({}),
      token: { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) },
      write(t: string) {
        o.text += t;
      },
    };
    return o;
  };

  beforeEach(async () => {
    outputs = path.join(tmpDir('steps'), 'outputs', 'avtime-bench');
    const root = writeRun(outputs, 'score');
    const latest = await readAvtimeProgress(root, { isAlive: () => false });
    opened = [];
    dataOpened = [];
    followed = [];
    host = {
      settings: () => ({ settings: avtimeSettingsSchema.parse({}), folders: { benchRoot: '/b', outputsDir: outputs }, cwd: outputs }),
      latest: () => latest,
      openReport: (r) => opened.push(r),
      onRunStarted: () => undefined,
      data: {
        cwd: () => outputs,
        openDataReport: (t) => dataOpened.push(t),
        followRoot: async (r) => void followed.push(r),
      },
    };
  });

  it('status prints the latest run’s stages, shards and passes', async () => {
    const o = io();
    assert.equal(await runAvtimeStep(host, ['status'], o), true);
    assert.match(o.text, /^\$ fpsweep avtime status\nAVTime run run-a .*: done\n/);
    assert.match(o.text, /shard 1: done · 1\/1/);
    assert.match(o.text, /pass 2 \(4096 tokens\): done · 1\/1 valid/);
  });

  it('report opens the panel of the run named by --run-id, and says its scores', async () => {
    const o = io();
    assert.equal(await runAvtimeStep(host, ['report', '--run-id', RUN_ID], o), true);
    assert.deepEqual(opened, [path.join(outputs, RUN_ID)]);
    assert.match(o.text, /Opened the report of run-a: T2E-A 0\.7500 T2E-V 0\.0000/);
  });

  it('without a run yet, or with a run id that is a path, it says what to do', async () => {
    await assert.rejects(
      runAvtimeStep({ ...host, latest: () => undefined }, ['status'], io()),
      /no AVTime run yet: run the `fpsweep avtime run --detach` step first/,
    );
    await assert.rejects(runAvtimeStep(host, ['report', '--run-id', '../x'], io()), /not a plain name/);
  });

  it('a CLI stage runs the CLI (here a build without it: the step fails, not hangs)', async () => {
    const o = io();
    assert.equal(await runAvtimeStep(host, ['inputs'], o), false);
    assert.match(o.text, /the CLI bundle .* is missing/);
  });

  it('run --detach follows the run with `fpsweep status --wait` (the CLI, its staleness check), then prints its status', async () => {
    // A stand-in dist/cli.js: records each call; `avtime run` "starts" the run (the fixture's, already ended).
    const dist = tmpDir('steps-dist');
    const calls = path.join(dist, 'calls.jsonl');
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      `require('fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n` +
        `process.stdout.write('stand-in ' + process.argv[2] + '\\n');`,
    );
    const o = io();
    o.distDir = dist;
    const started: string[] = [];
    assert.equal(await runAvtimeStep({ ...host, onRunStarted: () => started.push('x') }, ['run', '--detach', '--run-id', RUN_ID], o), true);
    const argv = fs
      .readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as string[]);
    assert.equal(argv.length, 2);
    assert.deepEqual(argv[0].slice(0, 3), ['avtime', 'run', '--detach']);
    assert.deepEqual(argv[1], ['status', '--wait', '--package', path.join(outputs, RUN_ID)]);
    assert.deepEqual(started, ['x']);
    assert.match(o.text, /stand-in status\n\nAVTime run .*: done/);
  });

  it('a Data step runs `fpsweep avtime <verb>` with its words as written, in the workspace folder, then opens its report', async () => {
    // A stand-in dist/cli.js: records its words and its working folder; fails `build-grpo` to see a failure kept.
    const dist = tmpDir('steps-data-dist');
    const calls = path.join(dist, 'calls.jsonl');
    fs.writeFileSync(
      path.join(dist, 'cli.js'),
      `require('fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');\n` +
        `if (process.argv[3] === 'build-grpo') { process.stderr.write('refused\\n'); process.exit(2); }\n` +
        `process.stdout.write('stand-in ' + process.argv[3] + '\\n');`,
    );
    const o = io();
    o.distDir = dist;
    const split = ['split', '--source', 'data/a b.jsonl', '--output-root', 'outputs/avtime-data/split', '--derive-test-ids'];
    assert.equal(await runAvtimeStep(host, split, o), true);
    assert.equal(await runAvtimeStep(host, ['cut', '--input-root', 'v', '--output-root', 'c', '--cutter', 'builtin'], o), true);
    const sft = ['build-sft', '--avtime-jsonl', 't.jsonl', '--bench-root', 'b', '--output-jsonl', 'sft/o.jsonl', '--report-json', 'sft/r.json'];
    assert.equal(await runAvtimeStep(host, sft, o), true);
    assert.equal(await runAvtimeStep(host, ['build-grpo', '--input-jsonl', 'sft/o.jsonl', '--report-json', 'grpo/r.json'], o), false);
    const runs = fs
      .readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { argv: string[]; cwd: string });
    // No bench root, run id or output root added: the step is what the cell says.
    assert.deepEqual(runs[0].argv, ['avtime', ...split]);
    assert.deepEqual(runs[2].argv, ['avtime', ...sft]);
    assert.deepEqual(
      runs.map((r) => r.cwd),
      runs.map(() => fs.realpathSync(outputs)),
    );
    // The split's folder and build-sft's report open; cut has no report; a failed step opens nothing.
    assert.deepEqual(dataOpened, [path.join(outputs, 'outputs/avtime-data/split'), path.join(outputs, 'sft/r.json')]);
    assert.match(o.text, /stand-in split\nOpened the report of .*split\./);
    assert.match(o.text, /refused\n\n\(exit 2\)\n$/);
    // The cut's output root is followed by the progress tree (a run root it made); no other step made one.
    assert.deepEqual(followed, [path.join(outputs, 'c')]);
  });
});
