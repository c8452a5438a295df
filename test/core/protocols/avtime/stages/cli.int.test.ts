import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { waitForWorkerExit } from '../../../../../src/core/runner/control';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { readAvtimeStatus } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { freePortRange } from '../../fp/sweep/helpers';
import { listFiles, tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub, startHeldDetachedRun } from './benchFixture';
import type { Stub } from './httpStub';

/** Runs `fpsweep avtime …` with stdout and stderr captured. */
const cli = (args: string[]) => runCli(['avtime', ...args]);

describe('fpsweep avtime: the command (SPEC-AVTIME §9)', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });
  async function endpoints(): Promise<string[]> {
    const s = [await targetStub(), await targetStub(), await judgeStub()];
    stubs.push(...s);
    return ['--target-endpoints', `${s[0].url},${s[1].url}`, '--judge-endpoint', s[2].url];
  }

  it('run: exit 0 with the six scores as the last line; a second run into the root: exit 2', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('cli'), 'r1');
    const args = ['run', '--bench-root', root, '--output-root', out, '--run-id', 'r1', ...(await endpoints())];
    const first = await cli(args);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out.trim().split('\n').pop()!, /^scores: T2E-A [\d.]+ .* over 14 queries/);
    const second = await cli(args);
    assert.equal(second.code, 2);
    assert.match(second.err, /already exists and is not empty/);
  });

  it('the stages one by one: inputs, infer, normalize, judge, score', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('cli'), 'r1');
    const eps = await endpoints();
    const common = ['--bench-root', root, '--output-root', out, '--run-id', 'r1'];
    const inputs = await cli(['inputs', '--bench-root', root]);
    assert.equal(inputs.code, 0, inputs.err);
    assert.match(inputs.out, /target inputs built: 3 rows from 3 test rows and 3 inventory rows, 3 assistant messages removed/);
    assert.equal((await cli(['judge', ...common, ...eps])).code, 2, 'no run to continue yet');
    const infer = await cli(['infer', ...common, ...eps]);
    assert.equal(infer.code, 0, infer.err);
    assert.match(infer.out, /target inference done: shard0 2\/2 written, 0 failed; shard1 1\/1 written, 0 failed/);
    const judgeEarly = await cli(['judge', ...common, ...eps]);
    assert.equal(judgeEarly.code, 2);
    assert.match(judgeEarly.err, /normalization has not run/);
    assert.match((await cli(['normalize', ...common])).out, /normalized 3 answers: 2 predictions/);
    assert.match((await cli(['judge', ...common, ...eps])).out, /judge done: 10 requests/);
    const score = await cli(['score', ...common]);
    assert.equal(score.code, 0, score.err);
    assert.match(score.out, /^scores: /m);
    assert.ok(fs.existsSync(new AvtimeRunLayout(out, 'r1').runConfig));
  });

  it('bad usage is exit 2: an unknown stage, no --bench-root, a bad GPU list', async () => {
    assert.equal((await cli(['bogus'])).code, 2);
    assert.match((await cli(['run'])).err, /--bench-root DIR is required/);
    // A real bench root: flags are checked in the order typed, and a folder that is no bench root is refused first.
    const bad = await cli(['run', '--bench-root', makeBench().root, '--target-gpus', '0,1;x']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--target-gpus '0,1;x': expected GPU indices/);
  });

  it('--target-base-port / --judge-base-port: 1024–65535 else exit 2; recorded in run_config (defaults 8011, 8031)', async () => {
    const { root } = makeBench();
    for (const [flag, value] of [
      ['--target-base-port', '80'],
      ['--judge-base-port', '65536'],
      ['--target-base-port', '9000.5'],
      ['--judge-base-port', 'x'],
      ['--target-base-port', ''],
    ]) {
      const bad = await cli(['run', '--bench-root', root, flag, value]);
      assert.equal(bad.code, 2, `${flag} ${value}`);
      assert.ok(bad.err.includes(`${flag} must be a whole number from 1024 to 65535, got '${value}'`), bad.err);
    }
    const dir = tmpDir('cli');
    const eps = await endpoints();
    const topology = async (runId: string, flags: string[]) => {
      const res = await cli(['run', '--bench-root', root, '--output-root', path.join(dir, runId), '--run-id', runId, ...eps, ...flags]);
      assert.equal(res.code, 0, res.err);
      const config = JSON.parse(fs.readFileSync(new AvtimeRunLayout(path.join(dir, runId), runId).runConfig, 'utf8'));
      return { target: config.topology.target.base_port, judge: config.topology.judge.base_port, nonDefault: config.non_default_options };
    };
    const defaults = await topology('r1', []);
    assert.deepEqual([defaults.target, defaults.judge], [8011, 8031]);
    assert.equal('targetBasePort' in defaults.nonDefault || 'judgeBasePort' in defaults.nonDefault, false);
    const set = await topology('r2', ['--target-base-port', '9100', '--judge-base-port', '65535']);
    assert.deepEqual([set.target, set.judge], [9100, 65535]);
    assert.deepEqual([set.nonDefault.targetBasePort, set.nonDefault.judgeBasePort], [9100, 65535]);
  });

  it('--target-base-port N: the launched target servers listen on N and N+1', async () => {
    const { root } = makeBench();
    const dir = tmpDir('cli');
    const record = path.join(dir, 'record');
    fs.mkdirSync(record);
    const base = await freePortRange(2);
    const saved = { RECORD_DIR: process.env.RECORD_DIR, VLLM_BIN: process.env.VLLM_BIN };
    process.env.RECORD_DIR = record;
    process.env.VLLM_BIN = path.join(__dirname, 'recordingVllm.js');
    try {
      // The recording vllm answers no chat request: inference fails (exit 1) once both servers were up.
      const res = await cli([
        'infer',
        '--bench-root',
        root,
        '--output-root',
        path.join(dir, 'r1'),
        '--run-id',
        'r1',
        '--target-model',
        'm',
        '--target-gpus',
        '0;1',
        '--target-tp',
        '1',
        '--target-base-port',
        String(base),
      ]);
      assert.equal(res.code, 1, res.err);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    assert.deepEqual(fs.readdirSync(record).sort(), [`${base}.json`, `${base + 1}.json`]);
  });

  it("run --detach: the detached worker runs it, holds the root's lock, and leaves the status file done", async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('cli'), 'r1');
    const res = await cli(['run', '--detach', '--bench-root', root, '--output-root', out, '--run-id', 'r1', ...(await endpoints())]);
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /avtime run started in the background: pid \d+/);
    const layout = new AvtimeRunLayout(out, 'r1');
    assert.ok(await waitForWorkerExit(layout, 50_000, 100));
    const status = await readAvtimeStatus(layout.statusFile);
    assert.equal(status?.state, 'done', fs.readFileSync(layout.runnerLog, 'utf8'));
    assert.match(status!.summary!, /^scores: /);
    assert.ok(listFiles(out).includes('eval/r1/summary.json'));
  });

  it('run --detach, then SIGTERM while the target holds every answer: status failed, lock released', async () => {
    const out = path.join(tmpDir('cli'), 'r1');
    // The target holds every answer: the run cannot end before the signal, nothing races.
    const { started: res } = await startHeldDetachedRun((a) => runCli(a), stubs, out);
    assert.equal(res.code, 0, res.err);
    const pid = Number(/pid (\d+)/.exec(res.out)![1]);
    const layout = new AvtimeRunLayout(out, 'r1');
    process.kill(pid, 'SIGTERM');
    assert.ok(await waitForWorkerExit(layout, 20_000, 100));
    const status = await readAvtimeStatus(layout.statusFile);
    assert.equal(status?.state, 'failed');
    assert.match(status!.summary!, /stopped by SIGTERM/);
    assert.equal(fs.existsSync(layout.lockFile), false);
  });

  it('run --detach with bad input: exit 2 in the foreground, nothing written', async () => {
    const { root } = makeBench();
    fs.rmSync(path.join(root, 'prompts', 'target.txt'));
    const out = path.join(tmpDir('cli'), 'r1');
    const res = await cli(['run', '--detach', '--bench-root', root, '--output-root', out, '--run-id', 'r1', ...(await endpoints())]);
    assert.equal(res.code, 2);
    assert.match(res.err, /prompts\/target\.txt does not exist/);
    assert.equal(fs.existsSync(out), false);
  });
});
