// The six AVTime scores (SPEC-AVTIME §7): the judge only says which captions match (or how well); everything
// temporal is computed here, deterministically, with a trace per query holding every intermediate value.

import { SCORE_KEYS, type ScoreKey } from './constants';
import { type Interval, hi, intersectionLength, lo, tIoU, totalLength, unionIntervals } from './intervals';
import type { PairJudgement, SelectorJudgement, T2EJudgement } from './judge/response';
import { activeEventIds } from './judge/request';
import type { Prediction, PredictionFailure } from './normalize';
import type { Axis, E2EQuery, E2TQuery, Query, Relation, T2EQuery } from './queries';

/** A video's normalization result, as scoring needs it (a NormalizeOutcome fits). */
export type VideoPrediction = { kind: 'ok'; prediction: Prediction } | { kind: 'failure'; failure: PredictionFailure };

/** A judge answer that counts, with the id the caller gives it (e.g. its response line's request_sha256). */
export interface Judged<T> {
  response_id: string;
  value: T;
}

type Status = 'scored' | 'prediction_failure';
interface TraceBase {
  query_id: string;
  video_id: string;
  axis: Axis;
  status: Status | 'no_active_prediction' | 'no_selection';
  judge_response_id: string | null;
  score: number;
}

export interface T2ETrace extends TraceBase {
  direction: 't2e';
  time_ms: number;
  reference_captions: string[];
  active_ids: number[];
  active_intervals_ms: Interval[];
  judge_score: number | null;
}

export interface E2TTrace extends TraceBase {
  direction: 'e2t';
  reference_caption: string;
  reference_interval_ms: Interval;
  selected_ids: number[];
  selected_union_ms: Interval[];
  intersection_ms: number;
  union_ms: number;
  tiou: number;
}

export interface E2ETrace extends TraceBase {
  direction: 'e2e';
  reference_events: E2EQuery['events'];
  reference_relation: Relation;
  selected_ids_a: number[];
  selected_ids_b: number[];
  union_a_ms: Interval[];
  union_b_ms: Interval[];
  /** lo/hi of U_a and U_b; null when that selection is empty. */
  bounds_a_ms: Interval | null;
  bounds_b_ms: Interval | null;
  tolerance_ms: number | null;
  predicted_relation: Relation | null;
}

export type QueryTrace = T2ETrace | E2TTrace | E2ETrace;

function base(q: Query): Pick<TraceBase, 'query_id' | 'video_id' | 'axis'> {
  return { query_id: q.query_id, video_id: q.video_id, axis: q.axis };
}

function predictionOf(q: Query, video: VideoPrediction): Prediction | null {
  const vid = video.kind === 'ok' ? video.prediction.video_id : video.failure.video_id;
  if (vid !== q.video_id) throw new Error(`query ${q.query_id} is about video ${q.video_id}, the prediction about ${vid}`);
  return video.kind === 'ok' ? video.prediction : null;
}

function missingJudge(q: Query): Error {
  return new Error(`query ${q.query_id}: no valid judge response (missing responses are fatal: no lexical fallback)`);
}

/** Sorted, distinct selected ids, each checked against the prediction. */
function selection(q: Query, p: Prediction, ids: readonly number[]): number[] {
  for (const i of ids) {
    if (!Number.isInteger(i) || i < 0 || i >= p.events.length) throw new Error(`query ${q.query_id}: selected index ${i} of ${p.events.length} events`);
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

const intervalsOf = (p: Prediction, ids: readonly number[]): Interval[] => ids.map((i) => [p.events[i].start_ms, p.events[i].end_ms] as const);

/** T2E: no active prediction → 0 without the judge; else score / 4. */
export function scoreT2E(q: T2EQuery, video: VideoPrediction, judged: Judged<T2EJudgement> | null): T2ETrace {
  const p = predictionOf(q, video);
  const t = { ...base(q), direction: 't2e' as const, time_ms: q.time_ms, reference_captions: q.reference_captions };
  if (p === null) {
    return { ...t, status: 'prediction_failure', active_ids: [], active_intervals_ms: [], judge_response_id: null, judge_score: null, score: 0 };
  }
  const active = activeEventIds(p, q.time_ms);
  const active_intervals_ms = intervalsOf(p, active);
  if (active.length === 0) {
    if (judged !== null) throw new Error(`query ${q.query_id}: a judge response for a query with no active prediction`);
    return { ...t, status: 'no_active_prediction', active_ids: [], active_intervals_ms, judge_response_id: null, judge_score: null, score: 0 };
  }
  if (judged === null) throw missingJudge(q);
  const s = judged.value.score;
  return { ...t, status: 'scored', active_ids: active, active_intervals_ms, judge_response_id: judged.response_id, judge_score: s, score: s / 4 };
}

/** E2T: tIoU(∪ selected intervals, reference interval); no selection → 0. */
export function scoreE2T(q: E2TQuery, video: VideoPrediction, judged: Judged<SelectorJudgement> | null): E2TTrace {
  const p = predictionOf(q, video);
  const ref = [q.reference_interval_ms] as const;
  const t = { ...base(q), direction: 'e2t' as const, reference_caption: q.reference_caption, reference_interval_ms: q.reference_interval_ms };
  const empty = { selected_ids: [], selected_union_ms: [], intersection_ms: 0, union_ms: totalLength(ref), tiou: 0, score: 0 };
  if (p === null) return { ...t, ...empty, status: 'prediction_failure', judge_response_id: null };
  if (judged === null) throw missingJudge(q);
  const ids = selection(q, p, judged.value.indices);
  if (ids.length === 0) return { ...t, ...empty, status: 'no_selection', judge_response_id: judged.response_id };
  const union = unionIntervals(intervalsOf(p, ids));
  const tiou = tIoU(union, ref);
  return {
    ...t,
    status: 'scored',
    selected_ids: ids,
    selected_union_ms: union,
    intersection_ms: intersectionLength(union, ref),
    union_ms: totalLength([...union, ...ref]),
    tiou,
    judge_response_id: judged.response_id,
    score: tiou,
  };
}

/** τ = ⌈D / 100⌉ ms. */
export function relationToleranceMs(durationMs: number): number {
  return Math.floor((durationMs + 99) / 100);
}

/** The relation of U_a to U_b: before iff hi(U_a) ≤ lo(U_b) + τ, else after iff lo(U_a) ≥ hi(U_b) − τ, else overlap. */
export function predictedRelation(ua: readonly Interval[], ub: readonly Interval[], toleranceMs: number): Relation {
  if (hi(ua) <= lo(ub) + toleranceMs) return 'before';
  if (lo(ua) >= hi(ub) - toleranceMs) return 'after';
  return 'overlap';
}

/** E2E: 1 iff both selections are non-empty and the relation of their unions equals the reference's. */
export function scoreE2E(q: E2EQuery, video: VideoPrediction, judged: Judged<PairJudgement> | null): E2ETrace {
  const p = predictionOf(q, video);
  const t = { ...base(q), direction: 'e2e' as const, reference_events: q.events, reference_relation: q.relation };
  if (p === null) {
    return {
      ...t,
      status: 'prediction_failure',
      selected_ids_a: [],
      selected_ids_b: [],
      union_a_ms: [],
      union_b_ms: [],
      bounds_a_ms: null,
      bounds_b_ms: null,
      tolerance_ms: null,
      predicted_relation: null,
      judge_response_id: null,
      score: 0,
    };
  }
  if (judged === null) throw missingJudge(q);
  const idsA = selection(q, p, judged.value.indices_a);
  const idsB = selection(q, p, judged.value.indices_b);
  const ua = unionIntervals(intervalsOf(p, idsA));
  const ub = unionIntervals(intervalsOf(p, idsB));
  const bounds = (u: Interval[]): Interval | null => (u.length === 0 ? null : [lo(u), hi(u)]);
  const tau = relationToleranceMs(p.duration_ms);
  const both = ua.length > 0 && ub.length > 0;
  const rel = both ? predictedRelation(ua, ub, tau) : null;
  return {
    ...t,
    status: both ? 'scored' : 'no_selection',
    selected_ids_a: idsA,
    selected_ids_b: idsB,
    union_a_ms: ua,
    union_b_ms: ub,
    bounds_a_ms: bounds(ua),
    bounds_b_ms: bounds(ub),
    tolerance_ms: tau,
    predicted_relation: rel,
    judge_response_id: judged.response_id,
    score: rel !== null && rel === q.relation ? 1 : 0,
  };
}

export type AnyJudged = Judged<T2EJudgement> | Judged<SelectorJudgement> | Judged<PairJudgement>;

/** Dispatch on the query's direction; the judgement must be the kind that direction asks for. */
export function scoreQuery(q: Query, video: VideoPrediction, judged: AnyJudged | null): QueryTrace {
  switch (q.direction) {
    case 't2e':
      return scoreT2E(q, video, judged as Judged<T2EJudgement> | null);
    case 'e2t':
      return scoreE2T(q, video, judged as Judged<SelectorJudgement> | null);
    case 'e2e':
      return scoreE2E(q, video, judged as Judged<PairJudgement> | null);
  }
}

export function scoreKey(t: Pick<QueryTrace, 'direction' | 'axis'>): ScoreKey {
  return `${t.direction.toUpperCase()}-${t.axis}` as ScoreKey;
}

export interface SummaryCounts {
  queries: Record<ScoreKey, number>;
  total_queries: number;
  judged: number;
  no_active_prediction: number;
  no_selection: number;
  prediction_failure_queries: number;
}

export type Summary = Record<ScoreKey, number> & { counts: SummaryCounts; prediction_failures: number };

/**
 * `summary.json`: each of the six keys the mean score of its queries (summed in trace order), plus counts.
 * A key with no query is an error: a mean of nothing is not a score.
 */
export function summarize(traces: readonly QueryTrace[], predictionFailures: number): Summary {
  const sums = Object.fromEntries(SCORE_KEYS.map((k) => [k, 0])) as Record<ScoreKey, number>;
  const queries = Object.fromEntries(SCORE_KEYS.map((k) => [k, 0])) as Record<ScoreKey, number>;
  const counts: SummaryCounts = { queries, total_queries: traces.length, judged: 0, no_active_prediction: 0, no_selection: 0, prediction_failure_queries: 0 };
  const seen = new Set<string>();
  for (const t of traces) {
    if (seen.has(t.query_id)) throw new Error(`query ${t.query_id} is traced twice`);
    seen.add(t.query_id);
    const k = scoreKey(t);
    sums[k] += t.score;
    queries[k]++;
    if (t.judge_response_id !== null) counts.judged++;
    if (t.status === 'no_active_prediction') counts.no_active_prediction++;
    if (t.status === 'no_selection') counts.no_selection++;
    if (t.status === 'prediction_failure') counts.prediction_failure_queries++;
  }
  const empty = SCORE_KEYS.filter((k) => queries[k] === 0);
  if (empty.length > 0) throw new Error(`no queries for ${empty.join(', ')}: every one of the six scores needs at least one query`);
  const means = Object.fromEntries(SCORE_KEYS.map((k) => [k, sums[k] / queries[k]])) as Record<ScoreKey, number>;
  return { ...means, counts, prediction_failures: predictionFailures };
}
