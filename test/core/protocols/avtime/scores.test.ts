import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Interval } from '../../../../src/core/protocols/avtime/intervals';
import type { Prediction } from '../../../../src/core/protocols/avtime/normalize';
import { type E2EQuery, type E2TQuery, QuerySchema, type T2EQuery } from '../../../../src/core/protocols/avtime/queries';
import {
  type QueryTrace,
  type VideoPrediction,
  predictedRelation,
  relationToleranceMs,
  scoreE2E,
  scoreE2T,
  scoreT2E,
  summarize,
} from '../../../../src/core/protocols/avtime/scores';

const D = 10_050; // τ = ⌈100.5⌉ = 101 ms
const ev = (start_ms: number, end_ms: number, caption: string) => ({ start_pct: 0, end_pct: 0, start_ms, end_ms, caption });
const prediction: Prediction = {
  id: 'r1',
  video_id: 'v1',
  duration_ms: D,
  events: [ev(0, 1000, 'a'), ev(900, 2000, 'b'), ev(5000, 6000, 'c'), ev(6101, 7000, 'd')],
  warnings: [],
};
const ok: VideoPrediction = { kind: 'ok', prediction };
const failed: VideoPrediction = { kind: 'failure', failure: { id: 'r1', video_id: 'v1', reason: 'no_event_lines', warnings: [] } };
const t2e = (time_ms: number, axis = 'A') =>
  QuerySchema.parse({ query_id: `t${time_ms}${axis}`, video_id: 'v1', axis, direction: 't2e', time_ms, reference_captions: ['x'] }) as T2EQuery;
const e2t = (iv: Interval, axis = 'A') =>
  QuerySchema.parse({ query_id: `e${iv}${axis}`, video_id: 'v1', axis, direction: 'e2t', reference_caption: 'x', reference_interval_ms: iv }) as E2TQuery;
const e2e = (relation: string, axis = 'A', id = 'p') =>
  QuerySchema.parse({
    query_id: `${id}${relation}${axis}`,
    video_id: 'v1',
    axis,
    direction: 'e2e',
    events: [
      { caption: 'x', interval_ms: [0, 1] },
      { caption: 'y', interval_ms: [2, 3] },
    ],
    relation,
  }) as E2EQuery;

describe('avtime/scores', () => {
  it('T2E: score / 4 over the active events; none active → 0 without the judge', () => {
    const t = scoreT2E(t2e(950), ok, { response_id: 'j1', value: { score: 3 } });
    assert.deepEqual(
      [t.status, t.active_ids, t.active_intervals_ms, t.judge_score, t.score, t.judge_response_id],
      [
        'scored',
        [0, 1],
        [
          [0, 1000],
          [900, 2000],
        ],
        3,
        0.75,
        'j1',
      ],
    );
    const none = scoreT2E(t2e(3000), ok, null);
    assert.deepEqual([none.status, none.score, none.judge_response_id], ['no_active_prediction', 0, null]);
    assert.throws(() => scoreT2E(t2e(950), ok, null), /no valid judge response/);
    assert.throws(() => scoreT2E(t2e(3000), ok, { response_id: 'j', value: { score: 4 } }), /no active prediction/);
  });
  it('E2T: tIoU of the union of the selected intervals; no selection → 0', () => {
    const t = scoreE2T(e2t([500, 2500]), ok, { response_id: 'j2', value: { indices: [1, 0, 1] } });
    assert.deepEqual([t.selected_ids, t.selected_union_ms, t.intersection_ms, t.union_ms, t.tiou, t.score], [[0, 1], [[0, 2000]], 1500, 2500, 0.6, 0.6]);
    const none = scoreE2T(e2t([500, 2500]), ok, { response_id: 'j3', value: { indices: [] } });
    assert.deepEqual([none.status, none.score, none.judge_response_id], ['no_selection', 0, 'j3']);
    assert.throws(() => scoreE2T(e2t([500, 2500]), ok, { response_id: 'j', value: { indices: [4] } }), /selected index 4/);
  });
  it('E2E: before / after / overlap with τ = ⌈D/100⌉, before tested first; both selections needed', () => {
    assert.equal(relationToleranceMs(D), 101);
    assert.equal(relationToleranceMs(10_000), 100);
    const rel = (a: number[], b: number[]) => scoreE2E(e2e('before'), ok, { response_id: 'j', value: { indices_a: a, indices_b: b } });
    // c ends at 6000, d starts at 6101 = 6000 + τ: still before; the other way round, after.
    assert.equal(rel([2], [3]).predicted_relation, 'before');
    assert.equal(rel([3], [2]).predicted_relation, 'after');
    assert.equal(rel([0], [1]).predicted_relation, 'before'); // a ends at 1000 ≤ 900 + τ: within tolerance
    assert.equal(rel([0, 2], [1]).predicted_relation, 'overlap'); // U_a = [0,1000) ∪ [5000,6000) spans U_b
  });
  it('E2E tolerance edges and the order of the tests', () => {
    // hi(A) = lo(B) + τ → before; one more ms → not before.
    assert.equal(predictedRelation([[0, 1101]], [[1000, 3000]], 101), 'before');
    assert.equal(predictedRelation([[0, 1102]], [[1000, 3000]], 101), 'overlap');
    assert.equal(predictedRelation([[2899, 4000]], [[1000, 3000]], 101), 'after');
    assert.equal(predictedRelation([[2898, 4000]], [[1000, 3000]], 101), 'overlap');
    // Both tests hold (two short sets within τ of each other): before, as it is tested first.
    assert.equal(predictedRelation([[1000, 1050]], [[1000, 1050]], 101), 'before');
  });
  it('E2E score: 1 iff both selections are non-empty and the relation equals the reference', () => {
    const s = (q: E2EQuery, a: number[], b: number[]) => scoreE2E(q, ok, { response_id: 'j', value: { indices_a: a, indices_b: b } });
    assert.equal(s(e2e('before'), [0, 1], [2, 3]).score, 1);
    assert.deepEqual(s(e2e('before'), [0, 1], [2, 3]).bounds_a_ms, [0, 2000]);
    assert.equal(s(e2e('after'), [0, 1], [2, 3]).score, 0);
    assert.equal(s(e2e('after'), [3], [0]).score, 1);
    assert.equal(s(e2e('overlap'), [0, 2], [1]).score, 1);
    const empty = s(e2e('before'), [], [2]);
    assert.deepEqual([empty.status, empty.predicted_relation, empty.score], ['no_selection', null, 0]);
  });
  it('a prediction failure scores 0 in every direction, with a trace saying so', () => {
    for (const t of [scoreT2E(t2e(950), failed, null), scoreE2T(e2t([0, 10]), failed, null), scoreE2E(e2e('before'), failed, null)]) {
      assert.deepEqual([t.status, t.score, t.judge_response_id], ['prediction_failure', 0, null]);
    }
  });
  it('summarize: exactly the six keys, means in [0, 1], counts', () => {
    const traces: QueryTrace[] = [
      scoreT2E(t2e(950, 'A'), ok, { response_id: 'a', value: { score: 2 } }),
      scoreT2E(t2e(3000, 'A'), ok, null),
      scoreT2E(t2e(950, 'V'), ok, { response_id: 'b', value: { score: 4 } }),
      scoreE2T(e2t([500, 2500], 'A'), ok, { response_id: 'c', value: { indices: [0, 1] } }),
      scoreE2T(e2t([500, 2500], 'V'), failed, null),
      scoreE2E(e2e('before', 'A'), ok, { response_id: 'd', value: { indices_a: [0], indices_b: [3] } }),
      scoreE2E(e2e('after', 'V'), ok, { response_id: 'e', value: { indices_a: [], indices_b: [3] } }),
    ];
    const s = summarize(traces, 1);
    assert.deepEqual(Object.keys(s).sort(), ['E2E-A', 'E2E-V', 'E2T-A', 'E2T-V', 'T2E-A', 'T2E-V', 'counts', 'prediction_failures']);
    assert.deepEqual(
      { ...s, counts: undefined },
      { 'T2E-A': 0.25, 'T2E-V': 1, 'E2T-A': 0.6, 'E2T-V': 0, 'E2E-A': 1, 'E2E-V': 0, counts: undefined, prediction_failures: 1 },
    );
    assert.deepEqual(s.counts, {
      queries: { 'T2E-A': 2, 'T2E-V': 1, 'E2T-A': 1, 'E2T-V': 1, 'E2E-A': 1, 'E2E-V': 1 },
      total_queries: 7,
      judged: 5,
      no_active_prediction: 1,
      no_selection: 1,
      prediction_failure_queries: 1,
    });
    assert.throws(
      () =>
        summarize(
          traces.filter((t) => !(t.direction === 't2e' && t.axis === 'V')),
          0,
        ),
      /no queries for T2E-V/,
    );
    assert.throws(() => summarize([...traces, traces[0]], 0), /traced twice/);
  });
  it('property: every score lies in [0, 1]', () => {
    const ids = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 });
    fc.assert(
      fc.property(ids, ids, fc.integer({ min: 0, max: 9000 }), fc.integer({ min: 1, max: 3000 }), (a, b, s, len) => {
        const t = scoreE2T(e2t([s, s + len]), ok, { response_id: 'j', value: { indices: a } });
        assert.ok(t.score >= 0 && t.score <= 1);
        const p = scoreE2E(e2e('overlap'), ok, { response_id: 'j', value: { indices_a: a, indices_b: b } });
        assert.ok(p.score === 0 || p.score === 1);
      }),
      { numRuns: 300 },
    );
  });
});
