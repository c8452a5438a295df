import * as assert from 'node:assert/strict';
import type { AvtimeRunView } from '../../../../src/core/protocols/avtime/progress';
import { viewKey } from '../../../../src/core/protocols/avtime/progress';
import { avtimeRunRow, avtimeSection } from '../../../../src/extension/protocols/avtime/avtimeTreeRows';
import { groupRow, NodeStore, type TreeNode } from '../../../../src/extension/progressNodes';
import { diffRuns, formatAvtimeStatus, latestRun, passText, runText, shardText, stageText } from '../../../../src/extension/protocols/avtime/avtimeTreeData';

function view(runId: string, over: Partial<AvtimeRunView> = {}): AvtimeRunView {
  return {
    runId,
    outputRoot: `/o/${runId}`,
    source: 'artifacts',
    live: false,
    state: 'stopped',
    canonical: true,
    startedAt: '2026-12-03T09:00:00Z',
    stages: [
      { name: 'inputs', state: 'done', done: 3, todo: 0, failed: 0 },
      { name: 'infer', state: 'stopped', done: 1, todo: 2, failed: 0 },
      { name: 'normalize', state: 'todo', done: 0, todo: 3, failed: 0 },
      { name: 'judge', state: 'todo', done: 0, todo: 0, failed: 0 },
      { name: 'score', state: 'todo', done: 0, todo: 0, failed: 0 },
    ],
    shards: [{ shard: 0, endpoint: 'http://127.0.0.1:8011', state: 'stopped', expected: 2, written: 1, failed: 0 }],
    passes: [{ pass: 2, maxTokens: 4096, state: 'failed', requests: 3, done: 1, failed: 2 }],
    summary: null,
    scores: null,
    ...over,
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
    const before = new Map([
      [a.outputRoot, viewKey(a)],
      [b.outputRoot, viewKey(b)],
    ]);
    assert.deepEqual(
      diffRuns(
        before,
        new Map([
          [a.outputRoot, a],
          [b.outputRoot, b],
        ]),
      ),
      { setChanged: false, changed: [] },
    );
    const b2 = view('b', { stages: b.stages.map((s) => (s.name === 'infer' ? { ...s, done: 2, todo: 1 } : s)) });
    assert.deepEqual(
      diffRuns(
        before,
        new Map([
          [a.outputRoot, a],
          [b.outputRoot, b2],
        ]),
      ),
      { setChanged: false, changed: [b.outputRoot] },
    );
    assert.deepEqual(diffRuns(before, new Map([[a.outputRoot, a]])), { setChanged: true, changed: [] });
    const c = view('c');
    assert.equal(
      diffRuns(
        before,
        new Map([
          [a.outputRoot, a],
          [c.outputRoot, c],
        ]),
      ).setChanged,
      true,
    );
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

describe('AVTime tree rows', () => {
  it('stages under a run, shards under infer, passes under judge; getParent walks back to the group', () => {
    const store = new NodeStore();
    store.update([groupRow(avtimeSection([view('a')], { id: 'avtime', title: 'AVTime-Bench' }))]);
    const [group] = store.roots;
    const [run] = group.children;
    assert.equal(run.row.contextValue, 'avtimeRun');
    assert.equal(run.row.root, '/o/a');
    // A live run's row says so: its inline Stop shows (package.json: viewItem == avtimeRun.live).
    assert.equal(avtimeRunRow(view('b', { live: true, state: 'running' })).contextValue, 'avtimeRun.live');
    assert.deepEqual(
      run.children.map((n) => n.row.label),
      ['inputs', 'infer', 'normalize', 'judge', 'score'],
    );
    assert.deepEqual(
      run.children[1].children.map((n) => n.id),
      ['avtime:/o/a:shard:0'],
    );
    assert.deepEqual(
      run.children[3].children.map((n) => n.id),
      ['avtime:/o/a:pass:2'],
    );
    // infer and judge are expandable before their shards or passes exist; the others are leaves.
    const empty = avtimeRunRow(view('b', { shards: [], passes: [] }));
    assert.deepEqual(
      empty.children.map((c) => c.collapsible),
      ['none', 'expanded', 'none', 'expanded', 'none'],
    );
    const chain: string[] = [];
    for (let n: TreeNode | undefined = run.children[1].children[0]; n; n = n.parent) chain.push(n.id);
    assert.deepEqual(chain, ['avtime:/o/a:shard:0', 'avtime:/o/a:stage:infer', 'avtime:/o/a', 'group:avtime']);
    // The accessibility labels the e2e reads are the texts of avtimeTreeData.ts.
    assert.equal(run.row.aria, runText(view('a')).aria);
    assert.equal(run.children[1].children[0].row.aria, shardText('a', view('a').shards[0]).aria);
  });
});
