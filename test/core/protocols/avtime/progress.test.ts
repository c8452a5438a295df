import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { artifactStamp, discoverAvtimeRuns, readAvtimeProgress, type AvtimeRunView } from '../../../../src/core/protocols/avtime/progress';
import type { AvtimeStatus } from '../../../../src/core/protocols/avtime/stages/statusSchema';
import { tmpDir } from './stages/fixtures';
import { writeRun } from './runFixture';

const stage = (v: AvtimeRunView, name: string) => v.stages.find((s) => s.name === name)!;
const dead = () => false;

describe('AVTime progress from the artifacts', () => {
  let outputs: string;
  beforeEach(() => {
    outputs = path.join(tmpDir('progress'), 'outputs', 'avtime-bench');
    fs.mkdirSync(outputs, { recursive: true });
  });

  it('finds run folders by their files, not every folder', async () => {
    const root = writeRun(outputs, 'started');
    fs.mkdirSync(path.join(outputs, 'not-a-run', 'misc'), { recursive: true });
    fs.writeFileSync(path.join(outputs, 'a-file.txt'), 'x');
    assert.deepEqual(await discoverAvtimeRuns(outputs), [root]);
    assert.deepEqual(await discoverAvtimeRuns(path.join(outputs, 'absent')), []);
  });

  it('a run that has only started: every stage todo, shards from the start record and the target inputs', async () => {
    const v = await readAvtimeProgress(writeRun(outputs, 'started'), { isAlive: dead });
    assert.equal(v.source, 'artifacts');
    assert.equal(v.state, 'todo');
    assert.deepEqual(
      v.shards.map((s) => [s.state, s.expected, s.written]),
      [
        ['todo', 2, 0],
        ['todo', 1, 0],
      ],
    );
    assert.deepEqual(
      v.stages.map((s) => s.state),
      ['todo', 'todo', 'todo', 'todo', 'todo'],
    );
  });

  it('half-done inference counts whole lines only (a torn last line is not a row) and shows the run stopped', async () => {
    const v = await readAvtimeProgress(writeRun(outputs, 'infer-half'), { isAlive: dead });
    assert.deepEqual(
      v.shards.map((s) => [s.shard, s.state, s.expected, s.written, s.failed]),
      [
        [0, 'stopped', 2, 1, 0],
        [1, 'todo', 1, 0, 0],
      ],
    );
    assert.deepEqual(stage(v, 'infer'), { name: 'infer', state: 'stopped', done: 1, todo: 2, failed: 0 });
    assert.equal(v.state, 'stopped');
    assert.equal(v.scores, null);
  });

  it('normalization: predictions done, prediction failures failed', async () => {
    const v = await readAvtimeProgress(writeRun(outputs, 'normalize'), { isAlive: dead });
    assert.deepEqual(stage(v, 'infer'), { name: 'infer', state: 'done', done: 3, todo: 0, failed: 0 });
    assert.deepEqual(stage(v, 'normalize'), { name: 'normalize', state: 'done', done: 2, todo: 0, failed: 1 });
    assert.equal(stage(v, 'judge').state, 'todo');
  });

  it('judge passes from requests, responses and failures per pass', async () => {
    const mid = await readAvtimeProgress(writeRun(outputs, 'judge-pass1'), { isAlive: dead });
    assert.deepEqual(mid.passes, [{ pass: 1, maxTokens: null, state: 'stopped', requests: 4, done: 2, failed: 0 }]);
    assert.equal(stage(mid, 'judge').state, 'stopped');
    assert.equal(stage(mid, 'judge').todo, 2);
  });

  it('a complete run: every stage done, both passes, the six scores', async () => {
    const v = await readAvtimeProgress(writeRun(outputs, 'score'), { isAlive: dead });
    assert.equal(v.state, 'done');
    assert.deepEqual(v.passes, [
      { pass: 1, maxTokens: 512, state: 'failed', requests: 4, done: 3, failed: 1 },
      { pass: 2, maxTokens: 4096, state: 'done', requests: 1, done: 1, failed: 0 },
    ]);
    assert.deepEqual(stage(v, 'judge'), { name: 'judge', state: 'done', done: 4, todo: 0, failed: 0 });
    assert.deepEqual(stage(v, 'score'), { name: 'score', state: 'done', done: 6, todo: 0, failed: 0 });
    assert.deepEqual(Object.keys(v.scores!), ['T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V']);
    assert.equal(v.scores!['T2E-A'], 0.75);
    assert.equal(v.scores!['E2E-A'], 1);
    assert.equal(v.runId, 'run-a');
    assert.equal(v.canonical, true);
  });

  it('a judge that failed after the retry pass: the run is failed, not stopped', async () => {
    const v = await readAvtimeProgress(writeRun(outputs, 'judge', { judgeFailsAfterRetry: true }), { isAlive: dead });
    assert.equal(stage(v, 'judge').state, 'failed');
    assert.equal(stage(v, 'judge').failed, 1);
    assert.equal(v.state, 'failed');
  });

  describe('the status file', () => {
    const status = (root: string, pid: number, state: AvtimeStatus['state']): AvtimeStatus => ({
      kind: 'avtime',
      runId: 'run-a',
      outputRoot: root,
      pid,
      state,
      startedAt: 's',
      updatedAt: 'u',
      canonical: true,
      stages: [{ name: 'infer', state: 'running', done: 7, todo: 5, failed: 0 }],
      shards: [{ shard: 0, endpoint: 'http://127.0.0.1:8011', state: 'running', expected: 12, written: 7, failed: 0 }],
      judgePasses: [],
      summary: null,
    });
    const write = (root: string, s: AvtimeStatus) => fs.writeFileSync(path.join(root, '.fpsweep', 'avtime-status.json'), JSON.stringify(s));

    it('is followed while its pid is alive', async () => {
      const root = writeRun(outputs, 'infer-half');
      write(root, status(root, 4242, 'running'));
      const v = await readAvtimeProgress(root, { isAlive: (pid) => pid === 4242 });
      assert.equal(v.source, 'worker');
      assert.equal(v.live, true);
      assert.equal(v.state, 'running');
      assert.deepEqual(stage(v, 'infer'), { name: 'infer', state: 'running', done: 7, todo: 5, failed: 0 });
      assert.equal(v.shards[0].endpoint, 'http://127.0.0.1:8011');
    });

    it('whose worker holds the lock on another host is followed (shared storage), as the lock counts it', async () => {
      const root = writeRun(outputs, 'infer-half');
      write(root, status(root, 4242, 'running'));
      fs.writeFileSync(path.join(root, '.fpsweep', 'worker.lock'), JSON.stringify({ pid: 4242, hostname: 'another-host', startedAt: 's' }));
      assert.equal((await readAvtimeProgress(root, { isAlive: dead })).live, true);
      fs.writeFileSync(path.join(root, '.fpsweep', 'worker.lock'), JSON.stringify({ pid: 4242, hostname: os.hostname(), startedAt: 's' }));
      assert.equal((await readAvtimeProgress(root, { isAlive: dead })).live, false);
    });

    it('of a dead worker gives way to the artifacts, keeping its last line', async () => {
      const root = writeRun(outputs, 'infer-half');
      write(root, { ...status(root, 4242, 'running'), summary: 'last words' });
      const v = await readAvtimeProgress(root, { isAlive: dead });
      assert.equal(v.source, 'artifacts');
      assert.equal(stage(v, 'infer').done, 1);
      assert.equal(v.summary, 'last words');
    });

    it('that says the run ended is not live even if the pid lives on', async () => {
      const root = writeRun(outputs, 'score');
      write(root, { ...status(root, 4242, 'done'), summary: 'scores: …' });
      const v = await readAvtimeProgress(root, { isAlive: () => true });
      assert.equal(v.live, false);
      assert.equal(v.state, 'done');
    });
  });
});

describe('AVTime artifact stamp', () => {
  it('changes when a shard gains a line, and not otherwise', async () => {
    const outputs = path.join(tmpDir('stamp'), 'outputs', 'avtime-bench');
    const root = writeRun(outputs, 'infer-half');
    const a = await artifactStamp(root);
    assert.equal(await artifactStamp(root), a);
    fs.appendFileSync(path.join(root, 'inference', 'shard0', 'raw_predictions.jsonl'), '\n');
    assert.notEqual(await artifactStamp(root), a);
  });
});
