// The data report's table of bins (issue 44): every bin's range from the split's four cut points, bin 0 and bin 4
// included, agreeing with the split's own rule for which bin a value is in.
import * as assert from 'node:assert/strict';
import { binOf } from '../../../../../src/core/protocols/avtime/data/split/bins';
import { binRanges, msAsSeconds } from '../../../../../src/extension/protocols/avtime/data/binRanges';

describe('data report: every bin with its range', () => {
  it('five ranges from four cut points: below the first, between each two, from the last', () => {
    assert.deepEqual(binRanges([30500, 61000, 90000, 125250], msAsSeconds), [
      '< 30.5 s',
      '30.5 s to < 61 s',
      '61 s to < 90 s',
      '90 s to < 125.3 s',
      '≥ 125.3 s',
    ]);
    assert.deepEqual(binRanges([], String), []);
  });

  it('each range holds the values the split puts in that bin (binOf: a value at a cut point is in the bin above)', () => {
    const cuts = [3, 5, 8, 13];
    const ranges = binRanges(cuts, String);
    for (const v of [0, 2, 3, 4, 5, 7, 8, 12, 13, 40]) {
      const k = binOf(v, cuts);
      const r = ranges[k];
      const lo = k === 0 ? -Infinity : cuts[k - 1];
      const hi = k === cuts.length ? Infinity : cuts[k];
      assert.ok(v >= lo && v < hi, `${v} in bin ${k} (${r})`);
      if (k > 0) assert.ok(r.startsWith(k === cuts.length ? `≥ ${lo}` : `${lo} to`), r);
      if (k < cuts.length) assert.ok(r.endsWith(`< ${hi}`), r);
    }
  });
});
