// A data step's report file → what the panel draws (dataReportTypes.ts). Pure: the texts come in, the model goes
// out; a file that is not what its verb writes is an Error naming the file (and the line, for JSONL) and what was
// expected, which the panel shows in place of the report.
import * as path from 'node:path';
import type { z } from 'zod';
import {
  grpoReportSchema,
  grpoRowSchema,
  sftReportSchema,
  sftRowSchema,
  splitManifestSchema,
  testIdLineSchema,
  type GrpoReportFile,
  type SftReportFile,
} from './dataReportFiles';
import type { BinBar, BuildReportView, EventsBar, HashedFile, SplitReportView, StratumCell } from './dataReportTypes';
import { describeJsonError, parseBoundedJson } from '../../../../core/io/boundedJson';

/** The first problem of a zod check, as `file: field: message`. */
function problem(file: string, err: z.ZodError, line?: number): Error {
  const i = err.issues[0];
  return new Error(`${file}${line !== undefined ? `:${line}` : ''}: ${i.path.join('.') || '(root)'}: ${i.message}`);
}

/** A report file's JSON, or an Error naming the file. */
export function parseJsonFile(file: string, text: string): unknown {
  try {
    return parseBoundedJson(text);
  } catch (err) {
    throw new Error(`${file}: ${describeJsonError(err)}`);
  }
}

/** Each non-empty line of a JSONL text checked by `schema`, with its 1-based line number. */
function* jsonlLines<S extends z.ZodTypeAny>(file: string, text: string, schema: S): Generator<{ line: number; value: z.infer<S> }> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    let json: unknown;
    try {
      json = parseBoundedJson(lines[i]);
    } catch (err) {
      throw new Error(`${file}:${i + 1}: ${describeJsonError(err)}`);
    }
    const r = schema.safeParse(json);
    if (!r.success) throw problem(file, r.error, i + 1);
    yield { line: i + 1, value: r.data };
  }
}

/** The test set's 25 strata (every cell, in stratum order 5·dbin + ebin) from test_ids.jsonl. */
export function strataOf(file: string, testIdsText: string): StratumCell[] {
  const cells: StratumCell[] = [];
  for (let d = 0; d < 5; d++) for (let e = 0; e < 5; e++) cells.push({ duration_bin: d, event_count_bin: e, rows: 0 });
  for (const { value } of jsonlLines(file, testIdsText, testIdLineSchema)) cells[5 * value.duration_bin + value.event_count_bin].rows++;
  return cells;
}

/** `split_manifest.json` and `test_ids.jsonl` of one split folder → the split's view. */
export function splitView(dir: string, manifestText: string, testIdsText: string): SplitReportView {
  const file = path.join(dir, 'split_manifest.json');
  const parsed = splitManifestSchema.safeParse(parseJsonFile(file, manifestText));
  if (!parsed.success) throw problem(file, parsed.error);
  const m = parsed.data;
  const strata = strataOf(path.join(dir, 'test_ids.jsonl'), testIdsText);
  const inTest = strata.reduce((n, c) => n + c.rows, 0);
  const testRows = m.outputs['test.jsonl']?.rows;
  if (testRows !== undefined && inTest !== testRows)
    throw new Error(`${path.join(dir, 'test_ids.jsonl')}: ${inTest} rows, but the manifest says test.jsonl has ${testRows}: not the same split`);
  const bins: BinBar[] = [];
  for (const split of ['train', 'test'] as const) {
    const dist = m.distributions[split];
    dist.duration_bins.forEach((rows, bin) => bins.push({ axis: 'duration', bin, split, rows }));
    dist.event_count_bins.forEach((rows, bin) => bins.push({ axis: 'event count', bin, split, rows }));
  }
  const files: HashedFile[] = [
    { name: 'source', path: m.source.path, sha256: m.source.sha256, rows: m.source.rows_read },
    ...(m.test_ids_file ? [{ name: 'test ids (frozen)', path: m.test_ids_file.path, sha256: m.test_ids_file.sha256, rows: null }] : []),
    ...Object.entries(m.outputs).map(([name, o]) => ({ name, path: path.join(dir, name), sha256: o.sha256, rows: o.rows })),
  ];
  return {
    kind: 'split',
    file,
    mode: m.mode,
    seed: m.seed ?? null,
    counts: {
      rows_read: m.source.rows_read,
      rows_retained: m.source.rows_retained,
      other_source: m.source.excluded.other_source,
      unknown_unlabeled: m.source.excluded.unknown_unlabeled,
      train: m.outputs['train.jsonl']?.rows ?? sum(m.distributions.train.duration_bins),
      test: testRows ?? inTest,
    },
    cutPoints: m.cut_points,
    strata,
    bins,
    checks: Object.entries(m.checks).map(([name, ok]) => ({ name, ok })),
    files,
  };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Rows per number of events, ascending by events; `eventsOf` counts one output row's events. */
function histogram(counts: Iterable<number>): EventsBar[] {
  const by = new Map<number, number>();
  for (const n of counts) by.set(n, (by.get(n) ?? 0) + 1);
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([events, rows]) => ({ events, rows }));
}

/** Events per row of build-sft's output: the assistant's answer lines (the last message). */
export function sftEventsHistogram(file: string, text: string): EventsBar[] {
  return histogram(
    (function* () {
      for (const { line, value } of jsonlLines(file, text, sftRowSchema)) {
        const last = value.messages[value.messages.length - 1];
        if (last.role !== 'assistant') throw new Error(`${file}:${line}: the last message is '${last.role}', expected the assistant's answer`);
        yield last.content === '' ? 0 : last.content.split('\n').length;
      }
    })(),
  );
}

/** Events per row of build-grpo's output: the length of each row's solution (a JSON array). */
export function grpoEventsHistogram(file: string, text: string): EventsBar[] {
  return histogram(
    (function* () {
      for (const { line, value } of jsonlLines(file, text, grpoRowSchema)) {
        let solution: unknown;
        try {
          solution = parseBoundedJson(value.solution);
        } catch {
          solution = null;
        }
        if (!Array.isArray(solution)) throw new Error(`${file}:${line}: solution: expected the JSON array of events`);
        yield solution.length;
      }
    })(),
  );
}

/** The output's rows read (the histogram), or why not: a report whose output is gone still shows its counts. */
export type OutputRead = { ok: true; text: string } | { ok: false; error: string };

function withHistogram(output: OutputRead, file: string, of: (file: string, text: string) => EventsBar[]) {
  if (!output.ok) return { histogram: null, histogramError: output.error };
  try {
    return { histogram: of(file, output.text), histogramError: null };
  } catch (err) {
    return { histogram: null, histogramError: (err as Error).message };
  }
}

/** build-sft's report (and its output rows) → the view. */
export function sftView(file: string, reportText: string, output: OutputRead): BuildReportView {
  const parsed = sftReportSchema.safeParse(parseJsonFile(file, reportText));
  if (!parsed.success) throw problem(file, parsed.error);
  const r: SftReportFile = parsed.data;
  const counts = [
    { name: 'written', value: r.counts.written },
    ...Object.entries(r.counts.written_by_source).map(([s, n]) => ({ name: `written: ${s}`, value: n })),
    ...Object.entries(r.counts.valid).map(([s, n]) => ({ name: `valid: ${s}`, value: n })),
    ...Object.entries(r.counts.skipped).flatMap(([s, by]) => Object.entries(by).map(([why, n]) => ({ name: `skipped: ${s}: ${why}`, value: n }))),
    { name: 'events dropped: no caption', value: r.events.dropped.no_caption },
    { name: 'events dropped: bad time', value: r.events.dropped.bad_time },
    { name: 'events de-duplicated', value: r.events.deduplicated },
  ];
  return {
    kind: 'sft',
    file,
    seed: r.seed,
    counts,
    settings: [
      { name: 'AVTime sample count', value: `${r.avtime_sample_count.sampled} sampled of ${r.avtime_sample_count.requested} requested` },
      { name: 'system prompt', value: `${r.prompts.system.file} (${r.prompts.system.sha256.slice(0, 12)}…)` },
      { name: 'user prompt', value: `${r.prompts.user.file} (${r.prompts.user.sha256.slice(0, 12)}…)` },
    ],
    ...withHistogram(output, r.output.path, sftEventsHistogram),
    files: [
      ...Object.entries(r.inputs).map(([s, i]) => ({ name: `input: ${s}`, path: i.path, sha256: i.sha256, rows: i.rows_read })),
      { name: 'output', path: r.output.path, sha256: r.output.sha256, rows: r.output.rows },
    ],
  };
}

/** build-grpo's report (and its output rows) → the view. */
export function grpoView(file: string, reportText: string, output: OutputRead): BuildReportView {
  const parsed = grpoReportSchema.safeParse(parseJsonFile(file, reportText));
  if (!parsed.success) throw problem(file, parsed.error);
  const r: GrpoReportFile = parsed.data;
  return {
    kind: 'grpo',
    file,
    seed: r.seed,
    counts: [
      { name: 'rows read', value: r.input.rows_read },
      { name: 'written', value: r.counts.written },
      { name: 'events', value: r.counts.events },
    ],
    settings: [
      { name: 'schema', value: r.schema },
      { name: 'task', value: r.task },
      { name: 'order', value: r.shuffle ? 'seeded rank' : 'input order (--no-shuffle)' },
      { name: 'media checked', value: r.check_media ? `under ${r.check_media.media_root}` : 'no' },
    ],
    ...withHistogram(output, r.output.path, grpoEventsHistogram),
    files: [
      { name: 'input', path: r.input.path, sha256: r.input.sha256, rows: r.input.rows_read },
      { name: 'output', path: r.output.path, sha256: r.output.sha256, rows: r.output.rows },
    ],
  };
}

/** Which data report a JSON file is, by its schema_version (null: none of them). */
export function dataReportKind(json: unknown): 'split' | 'sft' | 'grpo' | null {
  const v = (json as { schema_version?: unknown } | null)?.schema_version;
  return v === 'avtime_split_v1' ? 'split' : v === 'avtime_sft_report_v1' ? 'sft' : v === 'avtime_grpo_report_v1' ? 'grpo' : null;
}
