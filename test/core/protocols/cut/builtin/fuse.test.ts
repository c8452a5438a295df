// The builtin cutter's fusion rules as properties (issue 27 point 4): full coverage, no overlap, the minimums, the
// soft threshold, soft cuts at pause anchors when the window holds one, and determinism; plus worked examples.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { BUILTIN_DEFAULTS } from '../../../../../src/core/protocols/cut/builtin/config';
import {
  fuseBoundaries,
  pauseAnchors,
  softWindow,
  spacingOf,
  type FuseInput,
  type FuseRules,
  type FusedSegment,
} from '../../../../../src/core/protocols/cut/builtin/fuse';

const ms = (s: number) => Math.round(s * 1000);

/** Random rules that keep the config's constraint (soft ≥ 2 × max(min segment, min gap), in whole ms). */
const rulesArb: fc.Arbitrary<FuseRules> = fc
  .record({
    sceneThreshold: fc.double({ min: 0, max: 60, noNaN: true }),
    minBoundaryGapS: fc.double({ min: 0.5, max: 8, noNaN: true }),
    minSegmentS: fc.double({ min: 0.5, max: 8, noNaN: true }),
    softExtra: fc.double({ min: 0, max: 20, noNaN: true }),
    pauseShiftWindowS: fc.double({ min: 0, max: 3, noNaN: true }),
  })
  .map((r) => ({
    sceneThreshold: r.sceneThreshold,
    minBoundaryGapS: r.minBoundaryGapS,
    minSegmentS: r.minSegmentS,
    softThresholdS: (2 * Math.round(Math.max(r.minSegmentS, r.minBoundaryGapS) * 1000)) / 1000 + r.softExtra,
    pauseShiftWindowS: r.pauseShiftWindowS,
  }));

/** A uniform-ish time in [lo, hi] (s): integers are less biased to the bounds than doubles, and ms are the fusion's unit. */
const timeIn = (lo: number, hi: number) => fc.integer({ min: Math.round(lo * 1000), max: Math.round(hi * 1000) }).map((m) => m / 1000);

/** Videos with shot changes anywhere (some outside the video), pauses, and changes near pauses (so shifts happen). */
const inputArb: fc.Arbitrary<FuseInput> = timeIn(0.1, 400).chain((d) =>
  fc
    .record({
      durationSec: fc.constant(d),
      scenes: fc.array(fc.record({ t: timeIn(-1, d + 1), score: fc.integer({ min: 0, max: 255 }) }), { maxLength: 40 }),
      pauses: fc.array(
        fc.tuple(timeIn(0, d), timeIn(0.05, 4)).map(([start, len]) => ({ start, end: Math.min(d, start + len) })),
        { maxLength: 30 },
      ),
      nearPause: fc.array(fc.tuple(fc.nat(), timeIn(-3, 3), fc.integer({ min: 0, max: 255 })), { maxLength: 10 }),
    })
    .map(({ nearPause, ...input }) => ({
      ...input,
      scenes: [
        ...input.scenes,
        ...(input.pauses.length
          ? nearPause.map(([k, off, score]) => {
              const p = input.pauses[k % input.pauses.length];
              return { t: (p.start + p.end) / 2 + off, score };
            })
          : []),
      ],
    })),
);

const defaults: FuseRules = BUILTIN_DEFAULTS;

/** The segments' starts and ends in whole ms (the fusion works in ms, so these are exact). */
const spans = (segs: FusedSegment[]) => segs.map((s) => [ms(s.startSec), ms(s.endSec)] as const);

describe('builtin cutter: boundary fusion', () => {
  it('covers the whole video without gap or overlap, every end after its start (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, (input, rules) => {
        const s = spans(fuseBoundaries(input, rules).segments);
        assert.equal(s[0][0], 0);
        assert.equal(s[s.length - 1][1], ms(input.durationSec));
        s.forEach(([a, b], i) => {
          assert.ok(b > a, `segment ${i + 1}: ${a}–${b}`);
          if (i > 0) assert.equal(a, s[i - 1][1]);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every segment ≥ the min segment, or makes one segment of a shorter video (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, (input, rules) => {
        const segs = fuseBoundaries(input, rules).segments;
        const { minSegMs } = spacingOf(rules);
        if (ms(input.durationSec) < minSegMs) assert.equal(segs.length, 1);
        else for (const [a, b] of spans(segs)) assert.ok(b - a >= minSegMs, `${b - a} ms < ${minSegMs} ms`);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps boundaries at least the min gap apart and segments at most the soft threshold (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, (input, rules) => {
        const s = spans(fuseBoundaries(input, rules).segments);
        const { softMs } = spacingOf(rules);
        for (let i = 2; i < s.length; i++) assert.ok(s[i][0] - s[i - 1][0] >= ms(rules.minBoundaryGapS));
        for (const [a, b] of s) assert.ok(b - a <= softMs, `${b - a} ms > soft ${softMs} ms`);
      }),
      { numRuns: 400 },
    );
  });

  it('puts a soft boundary at a pause anchor whenever its admissible window holds one (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, (input, rules) => {
        const segs = fuseBoundaries(input, rules).segments;
        const D = ms(input.durationSec);
        const anchors = pauseAnchors(input.pauses, D);
        const { sepMs, softMs } = spacingOf(rules);
        segs.forEach((seg, i) => {
          if (seg.boundary.source !== 'soft') return;
          const t = ms(seg.startSec);
          const nextHard = segs.slice(i + 1).find((x) => x.boundary.source !== 'soft');
          const [lo, hi] = softWindow(ms(segs[i - 1].startSec), nextHard ? ms(nextHard.startSec) : D, sepMs, softMs);
          assert.ok(t >= lo && t <= hi, `soft boundary ${t} outside its window ${lo}–${hi}`);
          const inWindow = anchors.filter((a) => a >= lo && a <= hi);
          if (inWindow.length) assert.ok(anchors.includes(t) && seg.boundary.atPause, `soft boundary ${t} not at an anchor of ${inWindow}`);
          else assert.equal(seg.boundary.atPause, false);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('makes scene boundaries only of candidates above the threshold, at the change or at a pause anchor within the window (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, (input, rules) => {
        const D = ms(input.durationSec);
        const anchors = pauseAnchors(input.pauses, D);
        const { windowMs } = spacingOf(rules);
        for (const seg of fuseBoundaries(input, rules).segments.filter((x) => x.boundary.source === 'scene')) {
          const at = ms(seg.boundary.sceneSec!);
          const src = input.scenes.find((c) => ms(c.t) === at && c.score >= rules.sceneThreshold);
          assert.ok(src, `no candidate above the threshold at ${at}`);
          const t = ms(seg.startSec);
          if (seg.boundary.shiftedToPause) assert.ok(anchors.includes(t) && Math.abs(t - at) <= windowMs);
          else assert.equal(t, at);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('gives the same segments whatever the order of its inputs (property)', () => {
    fc.assert(
      fc.property(inputArb, rulesArb, fc.nat(), (input, rules, seed) => {
        const rot = <T>(xs: readonly T[]) => (xs.length ? [...xs.slice(seed % xs.length), ...xs.slice(0, seed % xs.length)].reverse() : []);
        const a = fuseBoundaries(input, rules);
        const b = fuseBoundaries({ ...input, scenes: rot(input.scenes), pauses: rot(input.pauses) }, rules);
        assert.deepEqual(spans(b.segments), spans(a.segments));
        assert.deepEqual(b.counts, a.counts);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a lone strong change where it is when no pause is near', () => {
    const r = fuseBoundaries({ durationSec: 20, scenes: [{ t: 9.04, score: 100 }], pauses: [{ start: 2, end: 3 }] }, defaults);
    assert.deepEqual(spans(r.segments), [
      [0, 9040],
      [9040, 20000],
    ]);
    assert.deepEqual(r.segments[1].boundary, { source: 'scene', confidence: 0.392, shiftedToPause: false, sceneSec: 9.04 });
  });

  it('clusters changes within the min gap (the strongest kept), moves one out of speech to a near pause, drops the weak', () => {
    const r = fuseBoundaries(
      {
        durationSec: 30,
        scenes: [
          { t: 8, score: 40 },
          { t: 10, score: 90 }, // 8 and 10 are one cluster: 10 is kept
          { t: 20, score: 30 }, // in speech; the pause 20.8–21.6 has its midpoint 21.2 within 1.5 s: moved there
          { t: 15, score: 10 }, // below 24
        ],
        pauses: [{ start: 20.8, end: 21.6 }],
      },
      defaults,
    );
    assert.deepEqual(spans(r.segments), [
      [0, 10000],
      [10000, 21200],
      [21200, 30000],
    ]);
    assert.deepEqual(
      { below: r.counts.below_threshold, clustered: r.counts.clustered, shifted: r.counts.shifted, kept: r.counts.scene_kept },
      { below: 1, clustered: 1, shifted: 1, kept: 2 },
    );
  });

  it('drops a change too near the end (min segment) and splits a long segment at a pause anchor, else evenly', () => {
    const atPause = fuseBoundaries({ durationSec: 40, scenes: [{ t: 36, score: 80 }], pauses: [{ start: 12.5, end: 13.5 }] }, defaults);
    // 36 leaves 4 s: dropped. 0–40 > 16: cursor 0, window 6–16, anchor 13 → then 13–40: window 19–29, even 26.5.
    assert.deepEqual(
      spans(atPause.segments).map(([a]) => a),
      [0, 13000, 26500],
    );
    assert.deepEqual(
      atPause.segments.map((s) => s.boundary.source),
      ['start', 'soft', 'soft'],
    );
    assert.deepEqual([atPause.counts.dropped_by_spacing, atPause.counts.soft, atPause.counts.soft_at_pause], [1, 2, 1]);
  });

  it('makes one segment of a video shorter than the min segment, changes or not', () => {
    const r = fuseBoundaries({ durationSec: 4.2, scenes: [{ t: 2, score: 200 }], pauses: [{ start: 1, end: 3 }] }, defaults);
    assert.deepEqual(spans(r.segments), [[0, 4200]]);
  });
});
