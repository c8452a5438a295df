// The shapes of an AVTime run's report as the host hands them to the webview (computed by report.ts; the
// webview only lays them out). Types only, no Node: the browser bundle type-checks against this file.

export type ScoreDirection = 't2e' | 'e2t' | 'e2e';
export type ScoreAxis = 'A' | 'V';

export interface AvtimeScoreCell {
  key: string;
  direction: ScoreDirection;
  axis: ScoreAxis;
  score: number;
  queries: number | null;
}

/** A 95 % (or `level`) bootstrap interval around a point estimate. */
export interface AvtimeInterval {
  estimate: number;
  lo: number;
  hi: number;
  videos: number;
}

/** summary_ci.json as the panel shows it: per direction, A and V with intervals, and the paired A − V. */
export interface AvtimeIntervals {
  method: string;
  seed: number;
  replicates: number;
  level: number;
  videos: number;
  rows: Array<{ direction: ScoreDirection; A: AvtimeInterval; V: AvtimeInterval; audioMinusVisual: AvtimeInterval }>;
}

export interface AvtimeFact {
  label: string;
  value: string;
}

export interface AvtimeReport {
  kind: 'avtime';
  runId: string;
  outputRoot: string;
  generatedAt: string;
  /** summary.json is there: the six scores exist. */
  scored: boolean;
  /** The 2×3 table, in the seed's order (T2E-A, T2E-V, E2T-A, E2T-V, E2E-A, E2E-V); empty before scoring. */
  scores: AvtimeScoreCell[];
  /** summary_ci.json (bootstrap over videos); null when it is not there (a run scored before it existed). */
  intervals: AvtimeIntervals | null;
  counts: AvtimeFact[];
  predictionFailures: number | null;
  canonical: boolean | null;
  /** run_config.json's highlights: commit, versions, models, prompts, decoding, topology, non-default options. */
  identity: AvtimeFact[];
  /** Per-query traces read (all three files) and the videos they are about, for the filters. */
  traces: number;
  videos: string[];
  /** Lines of the run's files that could not be read (file:line: message). */
  problems: string[];
}

export interface AvtimeQueryFilter {
  direction?: ScoreDirection;
  axis?: ScoreAxis;
  /** Exact video id. */
  video?: string;
  /** Part of the query id (case-insensitive). */
  text?: string;
}

export interface AvtimeQueryEntry {
  query_id: string;
  direction: ScoreDirection;
  axis: ScoreAxis;
  video_id: string;
  status: string;
  score: number;
}

export interface AvtimeQueryList {
  /** Queries that match the filter; `shown` holds the first `limit` of them, in trace order. */
  total: number;
  limit: number;
  shown: AvtimeQueryEntry[];
}

export type AvtimeReference =
  | { direction: 't2e'; time_ms: number; captions: string[] }
  | { direction: 'e2t'; caption: string; interval_ms: [number, number] }
  | { direction: 'e2e'; events: { caption: string; interval_ms: [number, number] }[]; relation: string };

export interface AvtimeEventRow {
  index: number;
  start_pct: number;
  end_pct: number;
  start_ms: number;
  end_ms: number;
  caption: string;
  /** What the query did with this event: 'active' (t2e), 'selected' (e2t), 'A' / 'B' (e2e). */
  marks: string[];
}

export interface AvtimeJudgeAnswer {
  response_id: string;
  request_type: string;
  pass: number;
  model_id: string;
  prompt_version: string;
  response: unknown;
  raw: string;
  ts: string;
}

export interface AvtimeQueryDetail {
  entry: AvtimeQueryEntry;
  reference: AvtimeReference;
  duration_ms: number | null;
  /** The video's predicted events (after the merge), or null for a prediction failure. */
  events: AvtimeEventRow[] | null;
  /** The answer that counted (from semantic_responses.jsonl by the trace's judge_response_id), if any. */
  judge: AvtimeJudgeAnswer | null;
  /** The trace names a judge response that is not in semantic_responses.jsonl. */
  judgeMissing: boolean;
  /** The interval arithmetic, step by step, as the trace recorded it. */
  arithmetic: AvtimeFact[];
}
