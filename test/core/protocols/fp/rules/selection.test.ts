import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { nearestIndex, selectFpsGrid, selectTimeUniform } from '../../../../../src/core/protocols/fp/rules/selection';

/** Stored timestamps as the store makes them: a start offset and a fixed step, like a 2 fps video. */
const storedTimestamps = fc
  .record({
    n: fc.integer({ min: 1, max: 1500 }),
    start: fc.double({ min: 0, max: 5, noNaN: true }),
    step: fc.constantFrom(0.5, 1 / 3, 0.25, 2.0, 1.75, 0.04),
  })
  .map(({ n, start, step }) => Array.from({ length: n }, (_, i) => start + i * step));

/** Irregular but ascending timestamps (variable frame rate). */
const irregularTimestamps = fc.array(fc.double({ min: 0.001, max: 3, noNaN: true }), { minLength: 1, maxLength: 600 }).map((gaps) => {
  let t = 0;
  return gaps.map((g) => (t += g));
});

function strictlyAscending(xs: readonly number[]): boolean {
  return xs.every((x, i) => i === 0 || x > xs[i - 1]);
}

function bruteNearest(ts: readonly number[], target: number): number {
  let best = 0;
  for (let i = 1; i < ts.length; i++) {
    if (Math.abs(ts[i] - target) < Math.abs(ts[best] - target) - 1e-9) best = i;
  }
  return best;
}

describe('protocol/selection', () => {
  describe('nearestIndex', () => {
    it('matches a brute-force scan, ties to the lower index', () => {
      fc.assert(
        fc.property(irregularTimestamps, fc.double({ min: -1, max: 2000, noNaN: true }), (ts, target) => {
          assert.equal(nearestIndex(ts, target), bruteNearest(ts, target));
        }),
        { numRuns: 300 },
      );
    });
    it('breaks an exact tie towards the earlier frame', () => {
      assert.equal(nearestIndex([0, 1, 2], 0.5), 0);
      assert.equal(nearestIndex([0, 1, 2], 1.5), 1);
      assert.equal(nearestIndex([0, 1, 2], 1.5 + 2e-10), 1, 'within 1e-9 is still a tie');
      assert.equal(nearestIndex([0, 1, 2], 1.5 + 1e-6), 2);
    });
  });

  describe('selectTimeUniform', () => {
    it('count, order, range, no duplicates, capped flag', () => {
      fc.assert(
        fc.property(storedTimestamps, fc.integer({ min: 1, max: 1024 }), (ts, n) => {
          const { indices, capped } = selectTimeUniform(ts, n);
          assert.equal(indices.length, Math.min(n, ts.length));
          assert.equal(capped, ts.length < n);
          assert.ok(strictlyAscending(indices), 'strictly ascending: time order, no repeats');
          assert.ok(indices.every((i) => Number.isInteger(i) && i >= 0 && i < ts.length));
        }),
        { numRuns: 400 },
      );
    });
    it('each frame is the stored frame nearest its slice centre', () => {
      fc.assert(
        fc.property(irregularTimestamps, fc.integer({ min: 1, max: 200 }), (ts, n) => {
          fc.pre(ts.length > n);
          const { indices } = selectTimeUniform(ts, n);
          const t0 = ts[0];
          const span = ts[ts.length - 1] - t0;
          indices.forEach((idx, k) => assert.equal(idx, bruteNearest(ts, t0 + ((k + 0.5) * span) / n)));
        }),
        { numRuns: 200 },
      );
    });
    it('sends every frame when the video has no more than N', () => {
      assert.deepEqual(selectTimeUniform([0, 0.5, 1], 3), { indices: [0, 1, 2], capped: false });
      assert.deepEqual(selectTimeUniform([0, 0.5, 1], 128), { indices: [0, 1, 2], capped: true });
    });
    it('hand-computed cases', () => {
      // 10 frames at 2 fps (0..4.5 s), N = 4: slice 1.125 s, centres 0.5625, 1.6875, 2.8125, 3.9375.
      const ts = Array.from({ length: 10 }, (_, i) => i * 0.5);
      assert.deepEqual(selectTimeUniform(ts, 4).indices, [1, 3, 6, 8]);
      // v_1: the centre of 0..4.5 is 2.25, a tie between 2.0 (4) and 2.5 (5) -> lower.
      assert.deepEqual(selectTimeUniform(ts, 1).indices, [4]);
      // A stream that starts late: t0 = 3.0, frames every 0.5 s, 8 frames (3.0..6.5), N = 2: centres 3.875, 5.625.
      const late = Array.from({ length: 8 }, (_, i) => 3 + i * 0.5);
      assert.deepEqual(selectTimeUniform(late, 2).indices, [2, 5]);
    });
  });

  describe('selectFpsGrid', () => {
    it('grid frames are ascending, unique, in range; capped exactly when the grid exceeds nMax', () => {
      fc.assert(
        fc.property(storedTimestamps, fc.constantFrom(0.25, 0.5, 1, 2, 3), fc.integer({ min: 1, max: 700 }), (ts, fps, nMax) => {
          const sel = selectFpsGrid(ts, fps, nMax);
          // The grid itself is deduplicated. The §2.1 re-sample over the grid's own (possibly irregular)
          // timestamps is applied as written: it keeps time order but, unlike frame-count conditions on
          // a regular store, may pick one grid frame twice (SPEC says nothing else; see the selection note).
          if (sel.cappedCtx) assert.ok(sel.indices.every((x, i) => i === 0 || x >= sel.indices[i - 1]));
          else assert.ok(strictlyAscending(sel.indices));
          assert.ok(sel.indices.every((i) => i >= 0 && i < ts.length));
          assert.equal(sel.cappedCtx, sel.nGrid > nMax);
          assert.equal(sel.indices.length, Math.min(sel.nGrid, nMax));
          assert.ok(sel.nGrid <= ts.length);
        }),
        { numRuns: 300 },
      );
    });
    it('uncapped grids follow t0 + j/F to the nearest stored frame', () => {
      // 2 fps store, 20 frames (0..9.5 s); fps 0.5 grid: 0, 2, 4, 6, 8 s -> frames 0, 4, 8, 12, 16.
      const ts = Array.from({ length: 20 }, (_, i) => i * 0.5);
      assert.deepEqual(selectFpsGrid(ts, 0.5, 582), { indices: [0, 4, 8, 12, 16], nGrid: 5, cappedCtx: false });
      // fps 2 on a 2 fps store: every frame.
      assert.equal(selectFpsGrid(ts, 2, 582).nGrid, 20);
      // fps 4 on a 2 fps store: grid 0, .25, .5, ... maps with ties to the lower frame, then dedups.
      assert.deepEqual(
        selectFpsGrid(ts, 4, 582).indices,
        ts.map((_, i) => i),
      );
    });
    it('refuses non-finite timestamps instead of looping', () => {
      assert.throws(() => selectFpsGrid([NaN, 1, 2], 1, 10), RangeError);
      assert.throws(() => selectFpsGrid([0, 1, Infinity], 1, 10), RangeError);
    });
    it('starts at the first stored timestamp, not at zero', () => {
      const ts = [10.2, 10.7, 11.2, 11.7, 12.2, 12.7];
      assert.deepEqual(selectFpsGrid(ts, 1, 100).indices, [0, 2, 4]);
    });
    it('resamples a long grid time-uniformly among grid frames only', () => {
      // 0.5 fps store (stored-480 long video), 1024 frames, 2046 s; fps 1 grid hits every frame (nGrid 1024).
      const ts = Array.from({ length: 1024 }, (_, i) => i * 2);
      const sel = selectFpsGrid(ts, 1, 582);
      assert.equal(sel.nGrid, 1024);
      assert.equal(sel.cappedCtx, true);
      assert.equal(sel.indices.length, 582);
      // fps 0.25: every other frame, 512 <= 582: not capped.
      const quarter = selectFpsGrid(ts, 0.25, 582);
      assert.deepEqual([quarter.nGrid, quarter.cappedCtx], [512, false]);
      assert.ok(quarter.indices.every((i) => i % 2 === 0));
    });
    it('resampled frames come from the grid', () => {
      fc.assert(
        fc.property(storedTimestamps, fc.constantFrom(0.25, 0.5, 1), fc.integer({ min: 1, max: 50 }), (ts, fps, nMax) => {
          const full = selectFpsGrid(ts, fps, 100000);
          const capped = selectFpsGrid(ts, fps, nMax);
          const grid = new Set(full.indices);
          assert.ok(capped.indices.every((i) => grid.has(i)));
        }),
        { numRuns: 200 },
      );
    });
  });
});
