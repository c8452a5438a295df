import * as assert from 'node:assert/strict';
import type { AvtimeRunView } from '../../src/core/protocols/avtime/progress';
import { avtimeStatusText, currentStage } from '../../src/extension/statusBarText';

function view(over: Partial<AvtimeRunView> = {}): AvtimeRunView {
  return {
    runId: 'r7',
    outputRoot: '/o/r7',
    source: 'worker',
    live: true,
    state: 'running',
    canonical: true,
    startedAt: 't0',
    stages: [
      { name: 'inputs', state: 'done', done: 3, todo: 0, failed: 0 },
      { name: 'infer', state: 'done', done: 3, todo: 0, failed: 0 },
      { name: 'normalize', state: 'done', done: 3, todo: 0, failed: 0 },
      { name: 'judge', state: 'running', done: 12, todo: 27, failed: 1 },
      { name: 'score', state: 'todo', done: 0, todo: 0, failed: 0 },
    ],
    shards: [],
    passes: [],
    summary: null,
    scores: null,
    ...over,
  };
}

describe('status bar text', () => {
  it('a live AVTime run: its running stage and counts, a spinning icon', () => {
    const t = avtimeStatusText(view());
    assert.equal(t.text, '$(sync~spin) AVTime r7 · judge 12/40 · 1 failed');
    assert.equal(t.aria, 'AVTime r7 · judge 12/40 · 1 failed');
    assert.match(t.tooltip, /judge: running, 12 done, 27 todo, 1 failed/);
  });

  it('an ended run: its state and the stage it stopped at (the failed one, else the last begun)', () => {
    const failed = view({
      live: false,
      state: 'failed',
      stages: view().stages.map((s) => (s.name === 'judge' ? { ...s, state: 'failed' as const, todo: 0 } : s)),
    });
    assert.equal(avtimeStatusText(failed).text, '$(warning) AVTime r7 failed · judge 12/13 · 1 failed');
    const done = view({
      live: false,
      state: 'done',
      stages: view().stages.map((s) => ({ ...s, state: 'done' as const, todo: 0, failed: 0, done: s.name === 'score' ? 40 : s.done })),
    });
    assert.equal(currentStage(done)?.name, 'score');
    assert.equal(avtimeStatusText(done).text, '$(pass) AVTime r7 done · score 40/40');
  });
});
