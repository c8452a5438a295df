// The cluster bootstrap of the six AVTime scores (issue 19 point 4): properties over random benches, cases
// whose answer is known exactly, and an outside recomputation (test/fixtures/avtime/bootstrap.py, the same
// rules written again in Python with its own mulberry32) under /usr/bin/python3.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import fc from 'fast-check';
import { SCORE_KEYS } from '../../../../../src/core/protocols/avtime/constants';
import { bootstrapSummary, quantileSorted, type ScoredQuery } from '../../../../../src/core/protocols/avtime/stats/bootstrap';

const PY = path.join(__dirname, '..', '..', '..', '..', 'fixtures', 'avtime', 'bootstrap.py');
const OPTS = { seed: 1234, replicates: 400, level: 0.95 };

/** A random bench: 2–12 videos, each with 0–4 queries per key (every key somewhere), scores from a small set. */
const bench = fc
  .tuple(
    fc.integer({ min: 2, max: 12 }),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 5 }), fc.constantFrom(0, 0.25, 0.5, 0.75, 1, 1 / 3, 0.1)), { minLength: 12, maxLength: 80 }),
  )
  .map(([n, xs]) => {
    const qs: ScoredQuery[] = xs.map(([v, k, score]) => ({ video_id: `v${v % n}`, key: SCORE_KEYS[k], score }));
    // Every key on two videos at least, with two different scores (non-degenerate).
    SCORE_KEYS.forEach((key) => qs.push({ video_id: 'v0', key, score: 0 }, { video_id: 'v1', key, score: 1 }));
    return qs;
  });

describe('avtime/stats bootstrapSummary (cluster bootstrap over videos)', () => {
  it('property: every interval contains its point estimate; lo ≤ hi; all within [0, 1] (differences within [-1, 1])', () => {
    fc.assert(
      fc.property(bench, fc.nat(), (qs, seed) => {
        const ci = bootstrapSummary(qs, { ...OPTS, seed });
        for (const k of SCORE_KEYS) {
          const s = ci.scores[k];
          const mean = qs.filter((q) => q.key === k).reduce((a, q) => a + q.score, 0) / s.queries;
          assert.ok(Math.abs(s.estimate - mean) < 1e-12, `${k}: estimate ${s.estimate} vs mean ${mean}`);
          assert.ok(s.lo <= s.estimate + 1e-12 && s.estimate <= s.hi + 1e-12, `${k}: ${JSON.stringify(s)}`);
          assert.ok(0 <= s.lo && s.hi <= 1);
        }
        for (const d of ['t2e', 'e2t', 'e2e'] as const) {
          const x = ci.audio_minus_visual[d];
          assert.ok(
            Math.abs(x.estimate - (ci.scores[`${d.toUpperCase()}-A` as 'T2E-A'].estimate - ci.scores[`${d.toUpperCase()}-V` as 'T2E-V'].estimate)) < 1e-12,
          );
          assert.ok(x.lo <= x.estimate + 1e-12 && x.estimate <= x.hi + 1e-12 && -1 <= x.lo && x.hi <= 1, `${d}: ${JSON.stringify(x)}`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property: the same seed gives the same result, whatever the order of the queries; the seed and count are recorded', () => {
    fc.assert(
      fc.property(bench, fc.nat(), (qs, seed) => {
        const a = bootstrapSummary(qs, { ...OPTS, seed });
        assert.deepEqual(bootstrapSummary([...qs].reverse(), { ...OPTS, seed }), a);
        assert.equal(a.seed, seed);
        assert.equal(a.replicates, OPTS.replicates);
      }),
      { numRuns: 100 },
    );
  });

  it('another seed draws other replicates (non-degenerate data)', () => {
    const qs = fc.sample(bench, { seed: 7, numRuns: 1 })[0];
    const a = bootstrapSummary(qs, OPTS);
    const b = bootstrapSummary(qs, { ...OPTS, seed: OPTS.seed + 1 });
    assert.notDeepEqual(
      SCORE_KEYS.map((k) => [a.scores[k].lo, a.scores[k].hi]),
      SCORE_KEYS.map((k) => [b.scores[k].lo, b.scores[k].hi]),
    );
  });

  it('property: a constant score gives a zero-width interval at that constant (and a constant difference)', () => {
    fc.assert(
      fc.property(bench, fc.constantFrom(0, 1 / 3, 0.1, 0.7, 1), fc.constantFrom(0, 0.2, 1), (qs, a, v) => {
        const flat = qs.map((q) => ({ ...q, score: q.key.endsWith('-A') ? a : v }));
        const ci = bootstrapSummary(flat, OPTS);
        for (const k of SCORE_KEYS) {
          const c = k.endsWith('-A') ? a : v;
          assert.deepEqual([ci.scores[k].estimate, ci.scores[k].lo, ci.scores[k].hi], [c, c, c], k);
        }
        for (const d of ['t2e', 'e2t', 'e2e'] as const) assert.deepEqual([ci.audio_minus_visual[d].lo, ci.audio_minus_visual[d].hi], [a - v, a - v]);
      }),
      { numRuns: 100 },
    );
  });

  it('resamples videos, not queries: two videos of 50 queries each, all 0 and all 1 → [0, 1]', () => {
    const qs: ScoredQuery[] = [];
    for (const key of SCORE_KEYS) for (let i = 0; i < 50; i++) qs.push({ video_id: 'a', key, score: 0 }, { video_id: 'b', key, score: 1 });
    const ci = bootstrapSummary(qs, { ...OPTS, replicates: 2000 });
    // Replicates are 0, 0.5 or 1 with chances 1/4, 1/2, 1/4; a bootstrap over the 100 queries would give about [0.4, 0.6].
    for (const k of SCORE_KEYS) assert.deepEqual([ci.scores[k].estimate, ci.scores[k].lo, ci.scores[k].hi], [0.5, 0, 1]);
  });

  it('pairs the difference by video: A and V equal on every video (but varying between videos) → a zero-width difference', () => {
    const qs: ScoredQuery[] = [];
    for (let v = 0; v < 10; v++)
      for (const d of ['T2E', 'E2T', 'E2E'])
        for (const axis of ['A', 'V']) qs.push({ video_id: `v${v}`, key: `${d}-${axis}` as ScoredQuery['key'], score: (v % 4) / 4 });
    const ci = bootstrapSummary(qs, OPTS);
    assert.ok(ci.scores['T2E-A'].hi - ci.scores['T2E-A'].lo > 0.2, 'each axis varies');
    for (const d of ['t2e', 'e2t', 'e2e'] as const) assert.deepEqual([ci.audio_minus_visual[d].lo, ci.audio_minus_visual[d].hi], [0, 0]);
  });

  it('quantileSorted is type 7 (numpy default)', () => {
    assert.equal(quantileSorted([1, 2, 3, 4], 0.25), 1.75);
    assert.equal(quantileSorted([1, 2, 3, 4], 0.975), 3.925);
    assert.equal(quantileSorted([5], 0.025), 5);
  });

  it('refuses a key without queries, and a bad replicate count', () => {
    assert.throws(() => bootstrapSummary([{ video_id: 'v', key: 'T2E-A', score: 1 }], OPTS), /no queries for T2E-V/);
    assert.throws(() => bootstrapSummary([], { ...OPTS, replicates: 0 }), /replicates 0/);
  });

  it('agrees with an independent Python recomputation (its own mulberry32 and type-7 quantile) to 1e-12', () => {
    const cases = fc.sample(fc.tuple(bench, fc.nat()), { seed: 42, numRuns: 20 });
    const input = cases.map(([qs, seed]) => ({ queries: qs, seed, replicates: OPTS.replicates, level: OPTS.level }));
    const py = JSON.parse(execFileSync('/usr/bin/python3', [PY], { input: JSON.stringify(input), maxBuffer: 64 << 20 }).toString()) as Array<
      Record<string, { estimate: number; lo: number; hi: number }>
    >;
    cases.forEach(([qs, seed], i) => {
      const ci = bootstrapSummary(qs, { ...OPTS, seed });
      const ours: Record<string, { estimate: number; lo: number; hi: number }> = { ...ci.scores };
      for (const d of ['t2e', 'e2t', 'e2e'] as const) ours[`${d}:A-V`] = ci.audio_minus_visual[d];
      assert.deepEqual(Object.keys(py[i]).sort(), Object.keys(ours).sort());
      for (const [k, want] of Object.entries(py[i]))
        for (const f of ['estimate', 'lo', 'hi'] as const)
          assert.ok(Math.abs(ours[k][f] - want[f]) < 1e-12, `case ${i} ${k}.${f}: ${ours[k][f]} vs ${want[f]}`);
    });
  });
});
