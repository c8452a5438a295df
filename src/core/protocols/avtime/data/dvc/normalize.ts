// `fpsweep avtime normalize` in the seed's argument form (Part III §7: --target-inputs, --raw, --output, --failures,
// --report, --model-id, --protocol, --decoding-json): AVTime-Bench's normalizer (../../stages/normalizeStage.ts,
// the same parser and merge) over a direct DVC run's raw answers, the decoding recorded as given.
import { z } from 'zod';
import { InputError, UsageError } from '../../../../errors';
import { PROTOCOL_NAME } from '../../constants';
import { rawPredictionSchema } from '../../stages/rawPrediction';
import { normalizeAll, normalizedLine, normalizedTexts } from '../../stages/normalizeStage';
import { sha256Text } from '../../stages/files';
import { publishFiles, refuseNonEmpty } from '../outputs';
import { normalizeOutputs } from '../layout';
import { DataInputError, parseSourceLines, readInputBytes } from '../sourceLines';
import { readDvcRows } from './rows';
import { parseBoundedJson } from '../../../../io/boundedJson';

export interface SeedNormalizeOptions {
  targetInputs: string;
  raw: string;
  output: string;
  failures: string;
  report: string;
  modelId: string;
  modelPath?: string;
  protocol: string;
  /** The --decoding-json text. */
  decodingJson: string;
}

const decodingSchema = z.record(z.string(), z.union([z.number(), z.string(), z.boolean()]));

export function parseDecoding(text: string): Record<string, number | string | boolean> {
  let json: unknown;
  try {
    json = parseBoundedJson(text);
  } catch (err) {
    throw new UsageError(`--decoding-json is not JSON (${(err as Error).message}); e.g. '{"temperature":0,"top_p":1,"top_k":20,"max_tokens":8192}'`);
  }
  const r = decodingSchema.safeParse(json);
  if (!r.success) throw new UsageError('--decoding-json must be one JSON object of numbers, strings and booleans (the decoding the answers were made with)');
  return r.data;
}

export async function runSeedNormalize(o: SeedNormalizeOptions): Promise<{ line: string }> {
  if (o.protocol !== PROTOCOL_NAME)
    throw new UsageError(`--protocol must be ${PROTOCOL_NAME} (the one protocol this normalizer implements), got '${o.protocol}'`);
  const decoding = parseDecoding(o.decodingJson);
  const out = normalizeOutputs(o.output, o.failures, o.report);
  for (const [file, flag] of [
    [out.file.output, '--output'],
    [out.file.failures, '--failures'],
    [out.file.report, '--report'],
  ] as const)
    await refuseNonEmpty(file, flag);
  const { rows, bytes: inputBytes } = await readDvcRows(o.targetInputs, 'train');
  const undated = rows.filter((r) => r.duration_ms === undefined);
  if (undated.length) {
    throw new DataInputError(
      `--target-inputs ${o.targetInputs}: the audited duration is missing`,
      undated.map((r) => ({ file: o.targetInputs, line: r.line, message: 'metadata.duration_ms: expected a positive whole number of milliseconds' })),
    );
  }
  const rawBytes = await readInputBytes(o.raw, '--raw');
  const raw = parseSourceLines(rawBytes, o.raw, rawPredictionSchema, 'a raw prediction line {id, video_id, response, …}');
  if (raw.problems.length) throw new DataInputError(`--raw ${o.raw}: not raw predictions`, raw.problems);
  let outcomes;
  try {
    outcomes = normalizeAll(
      rows.map((r) => ({ id: r.id, metadata: { video_id: r.video_id, duration_ms: r.duration_ms! } })),
      raw.lines.map((l) => l.value),
    );
  } catch (err) {
    // Coverage and identity are the inputs' problem: the raw file must answer each target input once.
    throw new InputError(`--raw ${o.raw} against --target-inputs ${o.targetInputs}: ${(err as Error).message}`);
  }
  const t = normalizedTexts(outcomes, {
    modelId: o.modelId,
    modelPath: o.modelPath,
    decoding,
    inputs: { target_inputs: { path: o.targetInputs, sha256: sha256Text(inputBytes) }, raw: { path: o.raw, sha256: sha256Text(rawBytes) } },
  });
  await publishFiles(out, { output: t.predictions, failures: t.failures, report: t.reportText });
  return { line: normalizedLine(t.report.counts) };
}
