// results/conditions_results.csv (SPEC §4): any column order, extra columns kept, append only.
// Reading gives the header, the rows, the done-set keyed by (benchmark, item_id, condition), the
// v_32 rows the stored-480 reuse rule copies from, and a torn last line kept apart (never a row).
import { promises as fs } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { InputError, type LineProblem } from '../../../errors';
import { REUSE_RULES } from '../rules/rules';
import { unitKey } from './unitKey';

const NL = 0x0a;

/** The (benchmark, item_id, condition) keys that already have a row. */
export class DoneSet {
  private readonly byBench = new Map<string, Map<string, Set<string>>>();
  private n = 0;

  /** Adds a key; false when it was already there. */
  add(benchmark: string, itemId: string, condition: string): boolean {
    let byCond = this.byBench.get(benchmark);
    if (!byCond) this.byBench.set(benchmark, (byCond = new Map()));
    let items = byCond.get(condition);
    if (!items) byCond.set(condition, (items = new Set()));
    if (items.has(itemId)) return false;
    items.add(itemId);
    this.n++;
    return true;
  }
  has(benchmark: string, itemId: string, condition: string): boolean {
    return this.byBench.get(benchmark)?.get(condition)?.has(itemId) ?? false;
  }
  /** Rows present for one benchmark × condition. */
  count(benchmark: string, condition: string): number {
    return this.byBench.get(benchmark)?.get(condition)?.size ?? 0;
  }
  get size(): number {
    return this.n;
  }
}

/** pred/correct of an existing row a reuse rule copies from (v_32), as written in the CSV. */
export interface StoredAnswer {
  pred: string;
  correct: string;
}

export interface TornTail {
  /** Byte offset where the torn last line starts; the CSV is complete up to here. */
  offset: number;
  bytes: Buffer;
  reason: string;
}

export interface ResultsCsv {
  file: string;
  /** The file's own header (column order kept), or null when the file is missing or empty. */
  header: string[] | null;
  /** Data rows aligned with `header` (only with keepRows). */
  rows: string[][];
  done: DoneSet;
  /** pred/correct of the rows the reuse rules copy from (today the v_32 rows); see storedAnswer(). */
  reuseAnswers: Map<string, StoredAnswer>;
  torn: TornTail | null;
  problems: LineProblem[];
  /** Byte length of the complete part of the file (up to the torn tail, if any). */
  completeLength: number;
}

export const REQUIRED_COLUMNS = ['benchmark', 'item_id', 'condition'] as const;

/** Conditions whose rows are indexed for the reuse rules (SPEC §2.4). */
const REUSE_SOURCES: ReadonlySet<string> = new Set(REUSE_RULES.map((r) => r.from));

/** pred/correct of the stored row (benchmark, item_id, condition), for a reuse source condition. */
export function storedAnswer(csv: Pick<ResultsCsv, 'reuseAnswers'>, benchmark: string, itemId: string, condition = 'v_32'): StoredAnswer | undefined {
  return csv.reuseAnswers.get(unitKey(benchmark, itemId, condition));
}

interface Scanned {
  header: string[] | null;
  records: { record: string[]; line: number }[];
  torn: TornTail | null;
  completeLength: number;
}

function parseCsv(buf: Buffer, onRecord: (record: string[], line: number, endByte: number) => void): void {
  parse(buf, {
    relax_column_count: true,
    skip_empty_lines: true,
    on_record: (record: string[], ctx: { lines: number; bytes: number }) => {
      onRecord(record, ctx.lines, ctx.bytes);
      return null; // records are kept by the callback, not by csv-parse
    },
  });
}

/**
 * Splits a results CSV into its complete records and a torn tail. A tail is torn when the file
 * does not end with a newline, or when its last line does not parse or has the wrong field count.
 */
export function scanResultsCsv(buf: Buffer, file: string, keepRecords = true, each?: (record: string[], line: number, header: string[]) => void): Scanned {
  let cut = buf.length;
  let reason = '';
  if (buf.length > 0 && buf[buf.length - 1] !== NL) {
    cut = buf.lastIndexOf(NL) + 1;
    reason = 'the file does not end with a newline';
  }
  let header: string[] | null = null;
  const records: { record: string[]; line: number }[] = [];
  let last: { record: string[]; line: number; start: number } | null = null;
  let prevEnd = 0;
  const run = (upTo: number) => {
    header = null;
    records.length = 0;
    last = null;
    prevEnd = 0;
    parseCsv(buf.subarray(0, upTo), (record, line, endByte) => {
      if (header === null) {
        header = record;
      } else {
        // the previous record is complete and not the last: commit it
        if (last) commit(last);
        last = { record, line, start: prevEnd };
      }
      prevEnd = endByte;
    });
  };
  const commit = (r: { record: string[]; line: number }) => {
    if (keepRecords) records.push(r);
    each?.(r.record, r.line, header!);
  };
  try {
    run(cut);
  } catch (err) {
    // A last line cut inside a quoted field cannot parse: set that last line aside and retry once.
    const lastNl = cut > 0 ? buf.lastIndexOf(NL, cut - 2) + 1 : 0;
    const e = err as { message: string; lines?: number };
    try {
      if (lastNl >= cut) throw err;
      cut = lastNl;
      reason = `its last line does not parse (${e.message})`;
      run(cut);
    } catch (err2) {
      const e2 = err2 as { message: string; lines?: number };
      throw new InputError(`cannot parse the results CSV (${e2.message}); fix or move the file (rows are never rewritten by fpsweep)`, {
        file,
        line: e2.lines,
      });
    }
  }
  const lastRec = last as { record: string[]; line: number; start: number } | null;
  const hdr = header as string[] | null;
  if (lastRec) {
    if (hdr && lastRec.record.length !== hdr.length && reason === '') {
      reason = `its last line has ${lastRec.record.length} fields, the header ${hdr.length}`;
      cut = lastRec.start;
    } else {
      commit(lastRec);
    }
  }
  const torn = reason && cut < buf.length ? { offset: cut, bytes: Buffer.from(buf.subarray(cut)), reason } : null;
  return { header: hdr, records, torn, completeLength: cut };
}

export interface ReadResultsOptions {
  /** Keep every row in memory (reports); the plan needs only the done-set and the v_32 index. */
  keepRows?: boolean;
}

/** Reads the results CSV. A missing file is an empty CSV (header null). */
export async function readResultsCsv(file: string, opts: ReadResultsOptions = {}): Promise<ResultsCsv> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return { file, header: null, rows: [], done: new DoneSet(), reuseAnswers: new Map(), torn: null, problems: [], completeLength: 0 };
    }
    throw err;
  }
  const done = new DoneSet();
  const reuseAnswers = new Map<string, StoredAnswer>();
  const problems: LineProblem[] = [];
  const rows: string[][] = [];
  let cols: { b: number; i: number; c: number; pred: number; correct: number } | null = null;
  const scanned = scanResultsCsv(buf, file, false, (record, line, header) => {
    if (!cols) {
      cols = {
        b: header.indexOf('benchmark'),
        i: header.indexOf('item_id'),
        c: header.indexOf('condition'),
        pred: header.indexOf('pred'),
        correct: header.indexOf('correct'),
      };
    }
    if (cols.b < 0 || cols.i < 0 || cols.c < 0) return; // reported below as an InputError
    if (opts.keepRows) rows.push(record);
    const b = record[cols.b],
      it = record[cols.i],
      c = record[cols.c];
    if (!b || !it || !c) {
      problems.push({ file, line, message: `row without benchmark/item_id/condition (${record.length} fields); not counted as done` });
      return;
    }
    if (record.length !== header.length) {
      problems.push({ file, line, message: `row has ${record.length} fields, the header ${header.length}; counted as done for (${b}, ${it}, ${c})` });
    }
    if (!done.add(b, it, c)) {
      problems.push({ file, line, message: `second row for (${b}, ${it}, ${c}); the first is kept` });
      return;
    }
    if (REUSE_SOURCES.has(c)) {
      reuseAnswers.set(unitKey(b, it, c), {
        pred: cols.pred >= 0 ? (record[cols.pred] ?? '') : '',
        correct: cols.correct >= 0 ? (record[cols.correct] ?? '') : '',
      });
    }
  });
  const header = scanned.header;
  if (header) {
    const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
    if (missing.length) {
      throw new InputError(`the header has no ${missing.join(', ')} column; cannot tell which rows are done`, { file, line: 1 });
    }
  }
  return { file, header, rows, done, reuseAnswers, torn: scanned.torn, problems, completeLength: scanned.completeLength };
}
