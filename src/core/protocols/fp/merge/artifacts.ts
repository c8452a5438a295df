// A package's results as the merge compares them: every CSV row with its line, every raw record
// (our schema) with its file and line, keyed by unitKey. Lines in another format (the origin's raw
// records) are not ours and are left out; a torn last line is reported, never taken as a row.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { PackageLayout } from '../package/layout';
import { scanResultsCsv } from '../package/resultsCsv';
import { rawRecordSchema, type RawRecord } from '../package/schemas';
import { unitKey } from '../package/unitKey';
import { csvValues } from '../sweep/csvRow';
import { rawFiles } from '../sweep/resume';
import { parseBoundedJson } from '../../../io/boundedJson';

export interface Where {
  file: string;
  line: number;
}
export const at = (w: Where) => `${w.file}:${w.line}`;

export interface CsvRowAt extends Where {
  /** Column → value, in the file's own header. */
  values: Map<string, string>;
}

export interface RawAt extends Where {
  /** sha256 of the record as the writer writes it (JSON.stringify of the parsed record): equal = same content. */
  digest: string;
  /** The record and that text, kept only when asked (a shard's, to be written; PKG's are only compared). */
  record?: RawRecord;
  text?: string;
}

export interface PackageResults {
  header: string[] | null;
  rows: Map<string, CsvRowAt>;
  raws: Map<string, RawAt>;
  /** Keys found twice with different content inside this one package: [first, second]. */
  conflicts: [Where, Where][];
  notes: string[];
}

/** `keepRecords`: keep each raw record and its text (a full package's raw records run to hundreds of MB). */
export async function readPackageResults(layout: PackageLayout, keepRecords: boolean): Promise<PackageResults> {
  const out: PackageResults = { header: null, rows: new Map(), raws: new Map(), conflicts: [], notes: [] };
  const buf = await fs.readFile(layout.resultsCsv).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
  const scanned = scanResultsCsv(buf, layout.resultsCsv, true);
  out.header = scanned.header;
  if (scanned.torn) out.notes.push(`${layout.resultsCsv}: torn last line (${scanned.torn.reason}) left out`);
  const header = scanned.header ?? [];
  const [bi, ii, ci] = ['benchmark', 'item_id', 'condition'].map((c) => header.indexOf(c));
  for (const { record, line } of scanned.records) {
    if (bi < 0 || ii < 0 || ci < 0 || !record[bi] || !record[ii] || !record[ci]) continue;
    const key = unitKey(record[bi], record[ii], record[ci]);
    const values = new Map(header.map((h, i) => [h, record[i] ?? '']));
    const prev = out.rows.get(key);
    if (prev) {
      if (!sameRow(prev.values, values)) out.conflicts.push([prev, { file: layout.resultsCsv, line }]);
      continue;
    }
    out.rows.set(key, { file: layout.resultsCsv, line, values });
  }
  for (const r of await rawFiles(layout)) {
    const text = await fs.readFile(r.file, 'utf8');
    const lines = text.split('\n');
    if (lines[lines.length - 1] !== '') out.notes.push(`${r.file}: torn last line (no newline) left out`);
    lines.pop();
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let parsed;
      try {
        parsed = rawRecordSchema.safeParse(parseBoundedJson(line));
      } catch {
        return;
      }
      if (!parsed.success) return; // the origin's format: not a record fpsweep wrote
      const record = parsed.data;
      if (record.benchmark !== r.bench || record.condition !== r.cond) return; // resume says so; not ours to place
      const key = unitKey(record.benchmark, record.item_id, record.condition);
      const text = JSON.stringify(record);
      const here: RawAt = { file: r.file, line: i + 1, digest: createHash('sha256').update(text).digest('hex'), ...(keepRecords ? { record, text } : {}) };
      const prev = out.raws.get(key);
      if (prev) {
        if (prev.digest !== here.digest) out.conflicts.push([prev, here]);
        return;
      }
      out.raws.set(key, here);
    });
  }
  return out;
}

/** Two rows are the same when every column either has is equal (a missing column reads as empty). */
export function sameRow(a: Map<string, string>, b: Map<string, string>): boolean {
  for (const k of new Set([...a.keys(), ...b.keys()])) if ((a.get(k) ?? '') !== (b.get(k) ?? '')) return false;
  return true;
}

/** Whether a CSV row says what its raw record says (the writer makes the row from the record). */
export function rowMatchesRecord(row: Map<string, string>, record: RawRecord): boolean {
  const v = csvValues(record);
  for (const [k, x] of row) if ((v[k] ?? '') !== x) return false;
  return true;
}
