// Stage 3, normalization (SPEC-AVTIME §4): the shards' raw answers, joined to the target inputs (for the
// audited duration), through the protocol's normalizePrediction → predictions.jsonl, prediction_failures.jsonl
// and prediction_report.json. Pure given its inputs; the three files land by rename, the report last, so
// the report's presence means the stage is complete.
import { readJsonl } from '../../../package/jsonl';
import { normalizePrediction, predictionReport, type NormalizeOutcome, type PredictionReportCounts } from '../normalize';
import { TARGET_DECODING } from '../constants';
import { rawPredictionSchema, type RawPrediction } from './rawPrediction';
import type { TargetInput } from './inputSchemas';
import type { AvtimeRunLayout } from './layout';
import { jsonlText, sha256Text, writeFileAtomic } from './files';

export interface NormalizeStageResult {
  outcomes: NormalizeOutcome[];
  line: string;
}

/** Every shard's raw lines, in shard order then file order; a raw id that is not a target input is an error. */
export async function readRawPredictions(layout: AvtimeRunLayout, shards: number): Promise<{ raw: RawPrediction[]; files: { path: string; text: string }[] }> {
  const raw: RawPrediction[] = [];
  const files: { path: string; text: string }[] = [];
  for (let k = 0; k < shards; k++) {
    const file = layout.rawPredictions(k);
    const { records, problems } = await readJsonl(file, rawPredictionSchema);
    if (problems.length) throw new Error(`${problems[0].file}:${problems[0].line}: ${problems[0].message}`);
    raw.push(...records.map((r) => r.value));
    files.push({ path: file, text: '' });
  }
  return { raw, files };
}

/** Normalizes in target-input order (the same order whatever order the shards answered in). */
/** What normalization needs of a target input: its identity and the audited duration. */
export type NormalizeTarget = Pick<TargetInput, 'id'> & { metadata: Pick<TargetInput['metadata'], 'video_id' | 'duration_ms'> };

export function normalizeAll(inputs: readonly NormalizeTarget[], raw: readonly RawPrediction[]): NormalizeOutcome[] {
  const byId = new Map<string, RawPrediction>();
  for (const r of raw) {
    if (byId.has(r.id)) throw new Error(`raw prediction ${r.id} appears twice across the shards`);
    byId.set(r.id, r);
  }
  if (byId.size !== inputs.length) throw new Error(`${byId.size} raw predictions for ${inputs.length} target inputs: coverage is not exact`);
  return inputs.map((t) => {
    const r = byId.get(t.id);
    if (!r) throw new Error(`no raw prediction for target input ${t.id}`);
    if (r.video_id !== t.metadata.video_id) throw new Error(`raw prediction ${t.id} names video ${r.video_id}, the target input ${t.metadata.video_id}`);
    return normalizePrediction({ id: t.id, video_id: t.metadata.video_id, duration_ms: t.metadata.duration_ms, response: r.response });
  });
}

/** The three artifacts' texts, the report last to land; `inputs` (the seed's normalize CLI) names what was read. */
export function normalizedTexts(
  outcomes: readonly NormalizeOutcome[],
  o: {
    modelId: string;
    modelPath?: string;
    decoding: Readonly<Record<string, number | string | boolean>>;
    inputs?: Record<string, { path: string; sha256: string }>;
  },
) {
  const predictions = jsonlText(outcomes.flatMap((x) => (x.kind === 'ok' ? [x.prediction] : [])));
  const failures = jsonlText(outcomes.flatMap((x) => (x.kind === 'failure' ? [x.failure] : [])));
  const report = {
    ...predictionReport({ model_id: o.modelId, model_path: o.modelPath, decoding: o.decoding, outcomes }),
    ...(o.inputs ? { inputs: o.inputs } : {}),
    outputs: { predictions: sha256Text(predictions), prediction_failures: sha256Text(failures) },
  };
  return { predictions, failures, report, reportText: JSON.stringify(report, null, 1) + '\n' };
}

/** The line that says what a normalization did, in numbers. */
export function normalizedLine(c: PredictionReportCounts): string {
  return (
    `normalized ${c.inputs} answers: ${c.predictions} predictions (${c.events} events, ${c.merged_away} merged away), ` +
    `${c.failures} prediction failures, ${c.warnings} warnings`
  );
}

export async function runNormalize(o: {
  layout: AvtimeRunLayout;
  inputs: readonly TargetInput[];
  shards: number;
  modelId: string;
  modelPath?: string;
  audioInVideo: boolean;
}): Promise<NormalizeStageResult> {
  const { raw } = await readRawPredictions(o.layout, o.shards);
  const outcomes = normalizeAll(o.inputs, raw);
  const t = normalizedTexts(outcomes, { modelId: o.modelId, modelPath: o.modelPath, decoding: { ...TARGET_DECODING, use_audio_in_video: o.audioInVideo } });
  await writeFileAtomic(o.layout.root, o.layout.predictions, t.predictions);
  await writeFileAtomic(o.layout.root, o.layout.predictionFailures, t.failures);
  await writeFileAtomic(o.layout.root, o.layout.predictionReport, t.reportText);
  return { outcomes, line: normalizedLine(t.report.counts) };
}
