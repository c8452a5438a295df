// The data rules as pure functions: quantile cut points and bins, largest-remainder quotas, percent buckets,
// the latest event list, retention (SPEC-AVTIME-DATA "Common rules", §1, §4).
import { strict as assert } from 'node:assert';
import { binOf, cutPoints } from '../../../../../src/core/protocols/avtime/data/split/bins';
import { stratumQuotas } from '../../../../../src/core/protocols/avtime/data/split/quotas';
import { retention } from '../../../../../src/core/protocols/avtime/data/split/retention';
import { toBuckets, msToPct } from '../../../../../src/core/protocols/avtime/data/buckets';
import { latestEventList } from '../../../../../src/core/protocols/avtime/data/eventList';
import { seededRank } from '../../../../../src/core/protocols/avtime/data/seededRank';
import { durationMs } from '../../../../../src/core/protocols/avtime/data/rowFacts';

describe('AVTime data rules', () => {
  it('cut points are the values at ⌊k·n/5⌋ of the sorted values; a bin counts the cut points reached', () => {
    const cuts = cutPoints([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]);
    assert.deepEqual(cuts, [3, 5, 7, 9]);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 9, 10].map((v) => binOf(v, cuts)),
      [0, 0, 1, 1, 2, 4, 4],
    );
    assert.deepEqual(cutPoints([5, 5, 5]), [5, 5, 5, 5]);
    assert.equal(binOf(5, [5, 5, 5, 5]), 4, 'ties all reach the top bin');
  });

  it('quotas: floors, then the rest by largest remainder, ties to the lower stratum', () => {
    // 3 rows into strata of 1,1,1,0…: 3·1/3 = 1 each, no rest
    assert.deepEqual(stratumQuotas([1, 1, 1, ...Array(22).fill(0)], 3).slice(0, 3), [1, 1, 1]);
    // 2 rows over 3 equal strata: floors 0, remainders equal: the two lowest strata
    assert.deepEqual(stratumQuotas([5, 5, 5, ...Array(22).fill(0)], 2).slice(0, 3), [1, 1, 0]);
    // 10 of 7+2+1: exact 7, 2, 1
    const q = stratumQuotas([70, 20, 10, ...Array(22).fill(0)], 10);
    assert.deepEqual(q.slice(0, 3), [7, 2, 1]);
    // 3 of 4+4+2 (n 10): 1.2, 1.2, 0.6 → floors 1,1,0, rest 1 to the largest remainder (0.6)
    assert.deepEqual(stratumQuotas([4, 4, 2, ...Array(22).fill(0)], 3).slice(0, 3), [1, 1, 1]);
    assert.equal(
      stratumQuotas([13, 7, 29, 1, 0, 50, 3, 3, 3, 3, 8, 2, 9, 11, 4, 4, 4, 6, 7, 1, 1, 2, 3, 5, 21], 300 % 199).reduce((a, b) => a + b),
      300 % 199,
    );
  });

  it('buckets: start ⌊x⌋, end ⌈x⌉ − 1, clamped to [0, 99], end ≥ start', () => {
    assert.deepEqual(toBuckets(12.5, 27.0), { start_pct: 12, end_pct: 26 });
    assert.deepEqual(toBuckets(12.5, 27.01), { start_pct: 12, end_pct: 27 });
    assert.deepEqual(toBuckets(-3, 140), { start_pct: 0, end_pct: 99 });
    assert.deepEqual(toBuckets(40, 40), { start_pct: 40, end_pct: 40 }, 'an instant keeps one bucket');
    assert.deepEqual(toBuckets(100, 100), { start_pct: 99, end_pct: 99 });
    assert.deepEqual(toBuckets(0, 0), { start_pct: 0, end_pct: 0 });
    assert.equal(msToPct(2500, 10_000), 25);
  });

  it('the latest event list: assistant messages from the end, whole JSON else the last ```json block', () => {
    const a = (content: string) => ({ role: 'assistant', content });
    assert.deepEqual(latestEventList([a('[1,2]'), a('prose')]), [1, 2]);
    assert.deepEqual(latestEventList([a('[1]'), a('x ```json\n[7]\n``` y ```json\n{"events": [8, 9]}\n```')]), [8, 9]);
    assert.equal(latestEventList([a('```json\n[1]\n``` ```json\nbroken\n```')]), null, 'only the last block is read');
    assert.equal(latestEventList([a('[]'), a('{"events": []}')]), null, 'an empty list is no list');
    assert.deepEqual(latestEventList([a('[3]'), { role: 'user', content: '[4]' }]), [3], 'user messages are not answers');
  });

  it('retention: the label decides; without one, the avtime_ namespace; never a guess', () => {
    assert.equal(retention({ id: 'x', metadata: { source: 'avtime' } }), 'retained');
    assert.equal(retention({ id: 'avtime_1', metadata: { source: 'longvale' } }), 'other_source');
    assert.equal(retention({ id: 'avtime_1' }), 'retained');
    assert.equal(retention({ id: 'AVTIME_1' }), 'unknown_unlabeled');
  });

  it('seeded rank and duration in whole ms', () => {
    assert.equal(seededRank('s', 'id'), 'd5f07e1ad959d30e326e38457f82b7fc0d1ab7ba0591efe94ee30aba803c1a17', 'sha256 of "s:id" (sha256sum)');
    assert.deepEqual(durationMs({ metadata: { duration_sec: 12.3456 } }), { ok: true, ms: 12346 });
    assert.deepEqual(durationMs({ metadata: { duration_ms: 0, duration_sec: 5 } }).ok, false, 'the first field present decides');
  });
});
