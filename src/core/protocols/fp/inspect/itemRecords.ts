// What the run left for one item: its CSV rows, its raw records and its failure lines, by condition. The raw files
// and the failures log are read line by line, and only lines naming the item are parsed (a benchmark's raw file
// holds ~300 records, an fps one with ~600 frame indices each). Bad lines are problems with file:line, never skipped
// in silence; a missing file is nothing yet.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { z } from 'zod';
import { describeJsonError, parseBoundedJson } from '../../../io/boundedJson';
import { describeZodError } from '../../../package/jsonl';
import { isPlainName } from '../../../package/names';
import type { PackageLayout } from '../package/layout';
import { readResultsCsv, REQUIRED_COLUMNS, scanResultsCsv } from '../package/resultsCsv';
import { failureRecordSchema, rawRecordSchema, type FailureRecord, type RawRecord } from '../package/schemas';

/** One CSV row as column → value (the CSV keeps its own header). */
export type CsvRow = Record<string, string>;

export interface ItemRecords {
  rows: Map<string, CsvRow>;
  raws: Map<string, RawRecord>;
  failures: Map<string, FailureRecord[]>;
  problems: string[];
}

export async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The JSON lines of `text` holding the string `value` (as JSON writes it), parsed with `schema`; bad ones go to `problems`. */
export function linesNaming<T>(text: string, file: string, value: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, problems: string[]): T[] {
  const needle = JSON.stringify(value).slice(1, -1);
  const out: T[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.includes(needle)) return;
    let json: unknown;
    try {
      json = parseBoundedJson(line);
    } catch (err) {
      // A torn last line (a run writing now, or a crash) is the resume's business, not a problem of this item.
      if (i < lines.length - 1) problems.push(`${file}:${i + 1}: ${describeJsonError(err)}`);
      return;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) out.push(parsed.data);
    else problems.push(`${file}:${i + 1}: ${describeZodError(parsed.error)}`);
  });
  return out;
}

function itemLines<T extends { benchmark: string; item_id: string }>(
  text: string,
  file: string,
  benchmark: string,
  itemId: string,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  problems: string[],
): T[] {
  return linesNaming(text, file, itemId, schema, problems).filter((r) => r.benchmark === benchmark && r.item_id === itemId);
}

/** The conditions with a raw folder (results/p1_raw/<cond>/), by name; names that are not plain are left out. */
async function rawConditions(layout: PackageLayout): Promise<string[]> {
  const root = path.join(layout.resultsDir, 'p1_raw');
  const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && isPlainName(e.name))
    .map((e) => e.name)
    .sort();
}

/** Adds one CSV record to `out` (item → condition → row) when it is `benchmark`'s; the first row of a key counts. */
function addRow(out: Map<string, Map<string, CsvRow>>, header: readonly string[], r: readonly string[], benchmark: string): void {
  const [b, i, c] = ['benchmark', 'item_id', 'condition'].map((k) => header.indexOf(k));
  if (r[b] !== benchmark || !r[i] || !r[c]) return;
  let byCond = out.get(r[i]);
  if (!byCond) out.set(r[i], (byCond = new Map()));
  // readResultsCsv reports the second row of a key; the first is the one that counts.
  if (!byCond.has(r[c])) byCond.set(r[c], Object.fromEntries(header.map((h, k) => [h, r[k] ?? ''])));
}

/** The CSV rows of one benchmark from the whole file, keyed by item then condition (benchmarkRows's oracle). */
export async function wholeBenchmarkRows(layout: PackageLayout, benchmark: string): Promise<Map<string, Map<string, CsvRow>>> {
  const csv = await readResultsCsv(layout.resultsCsv, { keepRows: true });
  const out = new Map<string, Map<string, CsvRow>>();
  for (const r of csv.rows) addRow(out, csv.header!, r, benchmark);
  return out;
}

/**
 * The CSV rows of one benchmark (of one item, `needle` its id), keyed by item then condition, as the whole file
 * gives them. A CSV without a quote character holds one record a line (the writer quotes any field with a comma,
 * quote or newline): then only the header and the lines holding `needle` are parsed, by the same parser (a full
 * sweep's CSV is ~50k rows: parsing it whole cost half a second in bench/itemInspector.ts, too long for the extension
 * host, which reads an item and a list to pick from). A CSV with quotes, or a header without the key columns, is
 * read whole (the latter an InputError with the file).
 */
export async function benchmarkRows(layout: PackageLayout, benchmark: string, needle = benchmark): Promise<Map<string, Map<string, CsvRow>>> {
  const buf = await fs.readFile(layout.resultsCsv).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (buf === null) return new Map();
  if (buf.includes(0x22)) return wholeBenchmarkRows(layout, benchmark);
  const lines = buf.toString('utf8').split('\n');
  // Each line keeps its own end: a last line without one stays torn, for the parser to set aside as it always does.
  const kept = lines.map((l, i) => (i === 0 || l.includes(needle) ? l + (i < lines.length - 1 ? '\n' : '') : '')).join('');
  const out = new Map<string, Map<string, CsvRow>>();
  const { header } = scanResultsCsv(Buffer.from(kept, 'utf8'), layout.resultsCsv, false, (r, _line, head) => addRow(out, head, r, benchmark));
  if (header && REQUIRED_COLUMNS.some((k) => !header.includes(k))) return wholeBenchmarkRows(layout, benchmark);
  return out;
}

/** One item's CSV rows by condition (benchmarkRows on the lines naming it). */
export async function itemRows(layout: PackageLayout, benchmark: string, itemId: string): Promise<Map<string, CsvRow>> {
  return (await benchmarkRows(layout, benchmark, itemId)).get(itemId) ?? new Map();
}

export async function readItemRecords(layout: PackageLayout, benchmark: string, itemId: string): Promise<ItemRecords> {
  const problems: string[] = [];
  const rows = await itemRows(layout, benchmark, itemId);
  const raws = new Map<string, RawRecord>();
  for (const cond of await rawConditions(layout)) {
    const file = layout.rawFile(cond, benchmark);
    const text = await readText(file);
    if (text === null) continue;
    const found = itemLines(text, file, benchmark, itemId, rawRecordSchema, problems).filter((r) => r.condition === cond);
    // Resume never doubles a record; should a file hold two, the last one written is what the row came from.
    if (found.length) raws.set(cond, found[found.length - 1]);
  }
  const failures = new Map<string, FailureRecord[]>();
  const failText = await readText(layout.failuresLog);
  if (failText !== null) {
    for (const f of itemLines(failText, layout.failuresLog, benchmark, itemId, failureRecordSchema, problems)) {
      const list = failures.get(f.condition) ?? [];
      list.push(f);
      failures.set(f.condition, list);
    }
  }
  return { rows, raws, failures, problems };
}
