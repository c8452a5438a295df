// The plan: this rank's videos, done while completed with an unchanged source, else to cut with why.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { shardRankOf } from '../../../../src/core/clips/shard';
import { planCut } from '../../../../src/core/protocols/cut/plan';
import type { VideoState } from '../../../../src/core/protocols/cut/schemas';

const sig = (n: number) => ({ size: n, mtimeNs: String(1000 + n) });
const source = (stem: string) => ({ stem, name: `${stem}.mp4`, file: `/in/${stem}.mp4` });
const state = (stem: string, s: VideoState['state'], n: number): VideoState => ({
  stem,
  source: `/in/${stem}.mp4`,
  signature: sig(n),
  state: s,
  reason: null,
  segments: 1,
  degraded: [],
  cutter: 'x',
  runId: 'r',
  rank: null,
  at: 't',
});

describe('cut: the plan', () => {
  it('skips completed videos with an unchanged source and says why each other is cut', () => {
    const p = planCut(
      [
        { source: source('new'), signature: sig(1), state: null },
        { source: source('done'), signature: sig(2), state: state('done', 'completed', 2) },
        { source: source('touched'), signature: sig(3), state: state('touched', 'completed', 99) },
        { source: source('failed'), signature: sig(4), state: state('failed', 'failed', 4) },
        { source: source('killed'), signature: sig(5), state: state('killed', 'running', 5) },
      ],
      null,
    );
    assert.deepEqual(
      p.done.map((d) => d.stem),
      ['done'],
    );
    assert.deepEqual(
      p.todo.map((t) => `${t.source.stem}: ${t.reason}`),
      ['new: new', 'touched: source changed', 'failed: failed before', 'killed: interrupted'],
    );
  });

  it('the ranks of N partition the videos by the stable hash', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 30 }), fc.integer({ min: 1, max: 5 }), (stems, n) => {
        const sources = stems.map((s) => ({ source: source(s), signature: sig(1), state: null }));
        const seen: string[] = [];
        for (let k = 1; k <= n; k++) {
          const p = planCut(sources, { index: k, count: n });
          for (const t of p.todo) assert.equal(shardRankOf(t.source.stem, n), k - 1);
          assert.equal(p.selected + p.otherRanks, stems.length);
          seen.push(...p.todo.map((t) => t.source.stem));
        }
        assert.deepEqual(seen.sort(), [...stems].sort());
      }),
    );
  });
});
