// RankTally, a data job rank's counts: the state a run ends in (done only with nothing failed or pending, stopped
// only when a stop left videos pending), the summary's counts line, and the shared status fields (rank 0-based).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { z } from 'zod';
import { RankTally, rankStatusFields } from '../../../src/core/runner/rankStatus';
import type { RunSession } from '../../../src/core/runner/runSession';

const counts = fc
  .tuple(fc.nat(50), fc.nat(50), fc.nat(50))
  .map(([completed, failed, pending]) => ({ completed, failed, selected: completed + failed + pending, pending }));

function tallyOf(c: { completed: number; failed: number; selected: number }): RankTally {
  const t = new RankTally('cut', c.selected, 0);
  t.completed = c.completed;
  t.failed = c.failed;
  return t;
}

describe('RankTally', () => {
  it('end: failed when any failed or (unstopped) pending, stopped when a stop left some pending, else done', () => {
    fc.assert(
      fc.property(counts, fc.boolean(), (c, stopped) => {
        const t = tallyOf(c);
        t.end(stopped);
        const want = c.failed > 0 ? 'failed' : c.pending === 0 ? 'done' : stopped ? 'stopped' : 'failed';
        assert.equal(t.state, want);
        assert.equal(t.pending, c.pending);
        assert.equal(t.summary, `cut: ${c.completed} done, ${c.failed} failed, ${c.pending} pending (of ${c.selected} selected)`);
      }),
    );
  });

  it('breakOff: failed, whatever the counts, with the reason above the counts line', () => {
    fc.assert(
      fc.property(counts, (c) => {
        const t = tallyOf(c);
        t.breakOff('failed: boom');
        assert.equal(t.state, 'failed');
        assert.equal(t.summary, `failed: boom\n${t.countsLine}`);
      }),
    );
  });

  it('fields: the session, a 0-based rank of the shard, the tally; a status write’s own summary first', () => {
    const session = { runId: 'cut-x-1', stopRequested: 'SIGTERM' } as RunSession;
    const t = new RankTally('caption', 5, 2);
    t.running();
    const f = t.fields(session, { index: 2, count: 3 }, null);
    assert.deepEqual(f, {
      runId: 'cut-x-1',
      pid: process.pid,
      state: 'running',
      rank: 1,
      of: 3,
      selected: 5,
      completed: 2,
      failed: 0,
      stopRequested: 'SIGTERM',
      summary: null,
    });
    z.object(rankStatusFields).parse(f);
    const unsharded = t.fields(session, null, 'stopping');
    assert.equal(unsharded.rank, null);
    assert.equal(unsharded.of, null);
    assert.equal(unsharded.summary, 'stopping');
  });
});
