import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { type Interval, hi, intersectionLength, lo, tIoU, totalLength, unionIntervals } from '../../../../src/core/protocols/avtime/intervals';

const interval = fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 })).map(([a, b]): Interval => [Math.min(a, b), Math.max(a, b)]);
const set = fc.array(interval, { maxLength: 6 });
/** The ms points a set covers, counted one by one: the oracle. */
const points = (xs: readonly Interval[]) => new Set(xs.flatMap(([s, e]) => Array.from({ length: e - s }, (_, i) => s + i)));

describe('avtime/intervals', () => {
  it('union sorts, joins touching and overlapping pieces, drops empty ones', () => {
    assert.deepEqual(
      unionIntervals([
        [10, 20],
        [0, 5],
        [5, 7],
        [15, 30],
        [40, 40],
      ]),
      [
        [0, 7],
        [10, 30],
      ],
    );
    assert.equal(tIoU([[0, 10]], [[5, 15]]), 5 / 15);
    assert.equal(tIoU([], []), 0);
    assert.equal(tIoU([[0, 10]], []), 0);
    assert.deepEqual(
      [
        lo([
          [30, 40],
          [5, 6],
        ]),
        hi([
          [30, 40],
          [5, 6],
        ]),
      ],
      [5, 40],
    );
    assert.throws(() => lo([]), /empty/);
    assert.throws(() => unionIntervals([[5, 4]]), /start ≤ end/);
  });
  it('property: lengths agree with counting points; tIoU in [0,1], symmetric, 1 for equal non-empty sets', () => {
    fc.assert(
      fc.property(set, set, (a, b) => {
        const pa = points(a);
        const pb = points(b);
        const inter = [...pa].filter((x) => pb.has(x)).length;
        const uni = new Set([...pa, ...pb]).size;
        assert.equal(totalLength(a), pa.size);
        assert.equal(intersectionLength(a, b), inter);
        const t = tIoU(a, b);
        assert.equal(t, uni === 0 ? 0 : inter / uni);
        assert.ok(t >= 0 && t <= 1);
        assert.equal(t, tIoU(b, a));
        if (pa.size > 0) assert.equal(tIoU(a, [...a].reverse()), 1);
        const u = unionIntervals(a);
        assert.deepEqual(unionIntervals(u), u);
        for (let i = 1; i < u.length; i++) assert.ok(u[i - 1][1] < u[i][0], 'disjoint, sorted, not touching');
      }),
      { numRuns: 1000 },
    );
  });
});
