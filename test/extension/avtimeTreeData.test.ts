import * as assert from 'node:assert/strict';
import type { AvtimeRunView } from '../../src/core/protocols/avtime/progress';
import { viewKey } from '../../src/core/protocols/avtime/progress';
import { AvtimeNodes, type AvtimeNode } from '../../src/extension/avtime/avtimeNodes';
import { diffRuns, formatAvtimeStatus, latestRun, passText, runText, shardText, stageText } from '../../src/extension/avtime/avtimeTreeData';

function view(runId: string, over: Partial<AvtimeRunView> = {}): AvtimeRunView {
  return {
    runId, outputRoot: `/o/${runId}`, source: 'artifacts', live: false, state: 'stopped', canonical: true, startedAt: '2026-12-03T09:00:00Z',
    stages: [
      { name: 'inputs', state: 'done', done: 3, todo: 0, failed: 0 },
      { name: 'infer', state: 'stopped', done: 1, todo: 2, failed: 0 },
      { name: 'normalize', state: 'todo', done: 0, todo: 3, failed: 0 },
      { name: 'judge', state: 'todo', done: 0, todo: 0, failed: 0 },
      { name: 'score', state: 'todo', done: 0, todo: 0, failed: 0 },
    ],
    shards: [{ shard: 0, endpoint: 'http://127.0.0.1:8011', state: 'stopped', expected: 2, written: 1, failed: 0 }],
    passes: [{ pass: 2, maxTokens: 4096, state: 'failed', requests: 3, done: 1, failed: 2 }],
    summary: null, scores: null, ...over,
  };
}

describe('AVTime tree text', () => {
  it('says each node state and done/todo/failed in words', () => {
    const v = view('r1');
    assert.equal(runText(v).aria, 'AVTime run r1: stopped, inputs done, infer stopped, normalize todo, judge todo, score todo');
    assert.equal(stageText('r1', v.stages[1]).aria, 'AVTime r1 infer: stopped, 1 done, 2 todo, 0 failed');
    assert.equal(shardText('r1', v.shards[0]).aria, 'AVTime r1 shard 0: stopped, 1 done, 1 todo, 0 failed of 2');
    assert.equal(shardText('r1', v.shards[0]).description, 'stopped · 1/2 · http://127.0.0.1:8011');
    assert.equal(passText('r1', v.passes[0]).label, 'pass 2 (4096 tokens)');
    assert.equal(passText('r1', v.passes[0]).aria, 'AVTime r1 judge pass 2: failed, 1 done, 0 todo, 2 failed of 3');
    assert.match(runText(view('r2', { canonical: false, live: true, state: 'running' })).description, /running · live · non-canonical/);
  });

  it('finds the runs that changed, and whether the set of runs changed', () => {
    const a = view('a');
    const b = view('b');
    const before = new Map([[a.outputRoot, viewKey(a)], [b.outputRoot, viewKey(b)]]);
    assert.deepEqual(diffRuns(before, new Map([[a.outputRoot, a], [b.outputRoot, b]])), { setChanged: false, changed: [] });
    const b2 = view('b', { stages: b.stages.map((s) => (s.name === 'infer' ? { ...s, done: 2, todo: 1 } : s)) });
    assert.deepEqual(diffRuns(before, new Map([[a.outputRoot, a], [b.outputRoot, b2]])), { setChanged: false, changed: [b.outputRoot] });
    assert.deepEqual(diffRuns(before, new Map([[a.outputRoot, a]])), { setChanged: true, changed: [] });
    const c = view('c');
    assert.equal(diffRuns(before, new Map([[a.outputRoot, a], [c.outputRoot, c]])).setChanged, true);
  });

  it('the latest run: a live one first, else the last started', () => {
    const old = view('old', { startedAt: '2026-12-01T00:00:00Z' });
    const recent = view('recent', { startedAt: '2026-12-03T00:00:00Z' });
    const live = view('live', { startedAt: '2026-11-01T00:00:00Z', live: true });
    assert.equal(latestRun([old, recent])?.runId, 'recent');
    assert.equal(latestRun([old, live, recent])?.runId, 'live');
    assert.equal(latestRun([]), undefined);
  });

  it('the status step prints stages with their shards and passes', () => {
    const text = formatAvtimeStatus(view('r1', { scores: { 'T2E-A': 0.5, 'T2E-V': 0, 'E2T-A': 1, 'E2T-V': 0, 'E2E-A': 0, 'E2E-V': 0.25 } }));
    assert.match(text, /^AVTime run r1 \(\/o\/r1\): stopped\n/);
    assert.match(text, /infer {5}stopped {2}1 done, 2 todo, 0 failed\n {4}shard 0: stopped · 1\/2/);
    assert.match(text, /judge .*\n {4}pass 2 \(4096 tokens\): failed · 1\/3 valid · 2 failed/);
    assert.match(text, /scores: T2E-A 0\.5000 T2E-V 0\.0000 E2T-A 1\.0000 E2T-V 0\.0000 E2E-A 0\.0000 E2E-V 0\.2500/);
  });
});

describe('AVTime tree nodes', () => {
  const source = (views: AvtimeRunView[]) => {
    const s = { runs: views, get: (root: string) => s.runs.find((v) => v.outputRoot === root) };
    return s;
  };

  it('a run keeps its node object across reads (so firing it refreshes that node), its view updated', () => {
    const s = source([view('a'), view('b')]);
    const nodes = new AvtimeNodes(s);
    const [a, b] = nodes.runNodes();
    s.runs = [view('a', { state: 'done' }), view('b')];
    const changed = nodes.changedNodes(['/o/a']);
    assert.equal(changed.length, 1);
    assert.equal(changed[0], a);
    assert.equal(a.run.state, 'done');
    assert.equal(nodes.runNodes()[1], b);
    s.runs = [view('b')];
    assert.deepEqual(nodes.runNodes(), [b]);
  });

  it('stages under a run, shards under infer, passes under judge; getParent walks back to the group', () => {
    const nodes = new AvtimeNodes(source([view('a')]));
    const [run] = nodes.children(nodes.group);
    const stages = nodes.children(run);
    assert.deepEqual(stages.map((n) => (n.kind === 'avtimeStage' ? n.stage.name : n.kind)), ['inputs', 'infer', 'normalize', 'judge', 'score']);
    const shards = nodes.children(stages[1]);
    const passes = nodes.children(stages[3]);
    assert.deepEqual(shards.map((n) => n.kind), ['avtimeShard']);
    assert.deepEqual(passes.map((n) => n.kind), ['avtimePass']);
    assert.deepEqual(nodes.children(stages[0]), []);
    const chain: AvtimeNode[] = [];
    for (let n: AvtimeNode | undefined = shards[0]; n; n = nodes.parent(n)) chain.push(n);
    assert.deepEqual(chain.map((n) => n.kind), ['avtimeShard', 'avtimeStage', 'avtimeRun', 'avtimeGroup']);
    assert.equal(chain[2], run);
    assert.equal(chain[3], nodes.group);
  });
});
