// Raw target answer → a prediction line or a prediction failure, and the normalization report (SPEC-AVTIME §4).

import { MAX_PCT, MERGE_GAP_PCT, MERGE_RATIO_GT, PROTOCOL_NAME } from './constants';
import { type LineWarning, mergeAdjacent, parseEventLines, pctToMs, sortEvents } from './events';

export interface RawPredictionInput {
  id: string;
  video_id: string;
  /** The audited duration (inventory / target input metadata), not anything the model said. */
  duration_ms: number;
  response: string;
}

export interface PredictedEvent {
  start_pct: number;
  end_pct: number;
  start_ms: number;
  end_ms: number;
  caption: string;
}

/** One `predictions.jsonl` line. */
export interface Prediction {
  id: string;
  video_id: string;
  duration_ms: number;
  events: PredictedEvent[];
  warnings: LineWarning[];
}

/** One `prediction_failures.jsonl` line. */
export interface PredictionFailure {
  id: string;
  video_id: string;
  reason: 'no_event_lines';
  warnings: LineWarning[];
}

export interface NormalizeStats {
  /** Event lines parsed, before the merge. */
  parsed_events: number;
  /** Events absorbed by the merge (parsed − kept). */
  merged_away: number;
}

export type NormalizeOutcome =
  { kind: 'ok'; prediction: Prediction; stats: NormalizeStats } | { kind: 'failure'; failure: PredictionFailure; stats: NormalizeStats };

export function normalizePrediction(input: RawPredictionInput): NormalizeOutcome {
  const { id, video_id, duration_ms, response } = input;
  const { events: parsed, warnings } = parseEventLines(response);
  if (parsed.length === 0) {
    return { kind: 'failure', failure: { id, video_id, reason: 'no_event_lines', warnings }, stats: { parsed_events: 0, merged_away: 0 } };
  }
  const merged = mergeAdjacent(sortEvents(parsed));
  const events = merged.map(({ start_pct, end_pct, caption }) => ({ start_pct, end_pct, ...pctToMs(start_pct, end_pct, duration_ms), caption }));
  return {
    kind: 'ok',
    prediction: { id, video_id, duration_ms, events, warnings },
    stats: { parsed_events: parsed.length, merged_away: parsed.length - merged.length },
  };
}

export interface PredictionReportCounts {
  inputs: number;
  predictions: number;
  failures: number;
  parsed_events: number;
  events: number;
  merged_away: number;
  warnings: number;
}

/** The rules a normalization ran under, for `prediction_report.json`. */
export const NORMALIZATION_RULES = {
  protocol: PROTOCOL_NAME,
  event_line: '^From ([0-9]{2}) to ([0-9]{2}), (.+)$ on the trimmed line, start <= end <= 99',
  max_pct: MAX_PCT,
  merge: {
    ratio: 'difflib.SequenceMatcher(None, current, next).ratio()',
    ratio_gt: MERGE_RATIO_GT,
    gap_pct: [MERGE_GAP_PCT.min, MERGE_GAP_PCT.max],
    end: 'next.end (upstream LongVALE merge_similar_sentences, even where next ends inside current)',
  },
  pct_to_ms: { start_ms: 'floor(start_pct*D/100)', end_ms: 'ceil((end_pct+1)*D/100)', clamp: '[0, D]', interval: 'half-open' },
} as const;

export function countOutcomes(outcomes: readonly NormalizeOutcome[]): PredictionReportCounts {
  const c: PredictionReportCounts = { inputs: outcomes.length, predictions: 0, failures: 0, parsed_events: 0, events: 0, merged_away: 0, warnings: 0 };
  for (const o of outcomes) {
    c.parsed_events += o.stats.parsed_events;
    c.merged_away += o.stats.merged_away;
    if (o.kind === 'ok') {
      c.predictions++;
      c.events += o.prediction.events.length;
      c.warnings += o.prediction.warnings.length;
    } else {
      c.failures++;
      c.warnings += o.failure.warnings.length;
    }
  }
  return c;
}

export interface PredictionReportInput {
  model_id: string;
  model_path?: string;
  decoding: Readonly<Record<string, number | string | boolean>>;
  outcomes: readonly NormalizeOutcome[];
}

/** `prediction_report.json`'s protocol part; the stage adds input/output hashes and paths. */
export function predictionReport(input: PredictionReportInput) {
  return {
    ...NORMALIZATION_RULES,
    model_id: input.model_id,
    ...(input.model_path !== undefined ? { model_path: input.model_path } : {}),
    decoding: { ...input.decoding },
    counts: countOutcomes(input.outcomes),
  };
}
