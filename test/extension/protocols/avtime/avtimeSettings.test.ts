import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  avtimeCliArgs,
  avtimeSettingsSchema,
  isPlainRunId,
  newRunId,
  resolveIn,
  settingsFlags,
} from '../../../../src/extension/protocols/avtime/avtimeSettingsModel';
import { DEMO_GPU_LAYOUT } from '../../../helpers/avtimeArgs';

const dirs = { benchRoot: '/ws/data/AVTime-Bench', outputsDir: '/ws/outputs/avtime-bench' };

describe('AVTime settings → CLI arguments', () => {
  const s = avtimeSettingsSchema.parse({
    targetModel: 'Qwen/Omni',
    judgeModel: 'Qwen/Qwen3.6-27B',
    targetGpus: '0;1',
    targetTp: 1,
    judgeGpus: '0',
    judgeTp: 1,
  });

  it('defaults: the bench root and outputs folder of SPEC-AVTIME, no flags', () => {
    const d = avtimeSettingsSchema.parse({});
    assert.equal(d.benchRoot, 'data/AVTime-Bench');
    assert.equal(d.outputRoot, 'outputs/avtime-bench');
    assert.deepEqual(settingsFlags(d), []);
  });

  it('resolves folders under the workspace folder unless absolute', () => {
    assert.equal(resolveIn('/ws', 'outputs/avtime-bench'), path.resolve('/ws/outputs/avtime-bench'));
    assert.equal(resolveIn('/ws', '/abs/x'), '/abs/x');
    assert.equal(resolveIn(undefined, 'rel'), undefined);
    assert.equal(resolveIn('/ws', '  '), undefined);
  });

  it('run: bench root, a fresh run id and its output root under the outputs folder, then the settings flags', () => {
    const r = avtimeCliArgs(['run', '--detach'], s, dirs, () => 'avtime-1');
    assert.deepEqual(r.args, [
      'run',
      '--detach',
      '--bench-root',
      dirs.benchRoot,
      '--run-id',
      'avtime-1',
      '--output-root',
      path.join(dirs.outputsDir, 'avtime-1'),
      '--target-model',
      'Qwen/Omni',
      '--judge-model',
      'Qwen/Qwen3.6-27B',
      ...DEMO_GPU_LAYOUT,
    ]);
    assert.equal(r.outputRoot, path.join(dirs.outputsDir, 'avtime-1'));
  });

  it('what the user wrote wins: their run id, bench root and flags are kept, not doubled', () => {
    const r = avtimeCliArgs(['run', '--run-id', 'mine', '--bench-root', '/b', '--target-tp', '4'], s, dirs, () => assert.fail('no fresh id'));
    assert.deepEqual(r.args.filter((a) => a === '--run-id' || a === '--bench-root' || a === '--target-tp').length, 3);
    assert.equal(r.outputRoot, path.join(dirs.outputsDir, 'mine'));
    assert.throws(() => avtimeCliArgs(['score', '--run-id', '../up'], s, dirs, () => 'x'), /not a plain name/);
  });

  it('sample runs as written; inputs gets only the bench root; endpoints replace launching', () => {
    assert.deepEqual(avtimeCliArgs(['sample', '--out', 'd'], s, dirs, () => 'x').args, ['sample', '--out', 'd']);
    assert.deepEqual(
      avtimeCliArgs(['inputs'], s, dirs, () => 'x'),
      { args: ['inputs', '--bench-root', dirs.benchRoot], outputRoot: null },
    );
    const e = avtimeSettingsSchema.parse({ targetEndpoints: ['http://127.0.0.1:9001', 'http://127.0.0.1:9002'], judgeEndpoint: 'http://127.0.0.1:9003' });
    assert.deepEqual(settingsFlags(e), ['--target-endpoints', 'http://127.0.0.1:9001,http://127.0.0.1:9002', '--judge-endpoint', 'http://127.0.0.1:9003']);
  });

  it("the launched servers' ports: --target-base-port / --judge-base-port when set, the CLI's defaults when unset", () => {
    const p = avtimeSettingsSchema.parse({ targetBasePort: 18_011, judgeBasePort: 18_031 });
    assert.deepEqual(settingsFlags(p), ['--target-base-port', '18011', '--judge-base-port', '18031']);
    assert.deepEqual(settingsFlags(avtimeSettingsSchema.parse({ judgeBasePort: 18_031 })), ['--judge-base-port', '18031']);
    assert.ok(!settingsFlags(s).some((f) => f.endsWith('-base-port')));
    assert.deepEqual(settingsFlags(p, ['--target-base-port']), ['--judge-base-port', '18031'], 'a port the user wrote is kept');
    assert.ok(
      avtimeCliArgs(['run'], p, dirs, () => 'a')
        .args.join(' ')
        .endsWith('--target-base-port 18011 --judge-base-port 18031'),
    );
    assert.equal(avtimeSettingsSchema.safeParse({ judgeBasePort: 1023 }).success, false);
  });

  it('run ids: fresh ones are plain names, paths are not', () => {
    assert.equal(newRunId(new Date('2026-12-03T09:05:07Z')), 'avtime-20261203-090507');
    assert.ok(isPlainRunId(newRunId()));
    for (const bad of ['..', 'a/b', '', 'a b']) assert.equal(isPlainRunId(bad), false, bad);
  });
});
