// The findings' input, pure: the results CSV's rows joined to the items (options, video) and the manifest
// (the video's hash = the cluster). One row per (benchmark, item_id, condition): the first wins, as in the
// done-set of the runner (resultsCsv.ts); a second row is a problem, never counted twice.
import type { LineProblem } from '../../../errors';
import type { Item } from '../package/schemas';

export interface ItemInfo {
  item_id: string;
  video_id: string | null;
  /** The cluster of the item: its video's hash, else `<benchmark>/<video_id>`, else the item itself. */
  cluster: string;
  /** Option count, or null for an item the items file does not have. */
  options: number | null;
  answer: string;
}

export interface RowInfo {
  /** `ok`, `NA`, `reuse` (SPEC §4) or whatever the row says (shown, never counted as an answer). */
  status: string;
  pred: string;
  /** 1/0 for an ok row; null for NA and reuse rows, and for an ok row without a valid `correct`. */
  correct: 0 | 1 | null;
  /** The `n_frames` column (frames sent), or null. */
  nFrames: number | null;
}

export interface BenchmarkTable {
  benchmark: string;
  /** The benchmark's items in package order (plus, at the end, items that only the CSV names). */
  items: Map<string, ItemInfo>;
  /** condition → item_id → row. */
  rows: Map<string, Map<string, RowInfo>>;
}

export interface FindingsInput {
  benchmarks: BenchmarkTable[];
  problems: LineProblem[];
  /** Data rows read from the CSV. */
  rowsRead: number;
}

export interface CsvRowsSource {
  file: string;
  header: string[] | null;
  rows: string[][];
}

/** The first data row is line 2; rows are in file order (a torn tail is not a row). */
export function buildFindingsInput(
  benchmarks: readonly string[],
  items: ReadonlyMap<string, readonly Item[]>,
  manifest: ReadonlyMap<string, ReadonlyMap<string, string>>,
  csv: CsvRowsSource,
): FindingsInput {
  const problems: LineProblem[] = [];
  const tables = new Map<string, BenchmarkTable>();
  for (const b of benchmarks) {
    const infos = new Map<string, ItemInfo>();
    for (const it of items.get(b) ?? []) {
      const hash = manifest.get(b)?.get(it.video_id);
      infos.set(it.item_id, {
        item_id: it.item_id,
        video_id: it.video_id,
        cluster: hash ?? `${b}/${it.video_id}`,
        options: it.options.length,
        answer: it.answer,
      });
    }
    tables.set(b, { benchmark: b, items: infos, rows: new Map() });
  }
  const h = csv.header;
  if (!h) return { benchmarks: [...tables.values()], problems, rowsRead: 0 };
  const col = (name: string) => h.indexOf(name);
  const [cb, ci, cc, cs, cp, ca, ck, cn] = ['benchmark', 'item_id', 'condition', 'status', 'pred', 'answer', 'correct', 'n_frames'].map(col);
  let line = 1;
  for (const r of csv.rows) {
    line++;
    const b = r[cb] ?? '';
    const id = r[ci] ?? '';
    const cond = r[cc] ?? '';
    const table = tables.get(b);
    if (!table || !id || !cond) continue; // another benchmark (not loaded) or a row readResultsCsv reported
    let item = table.items.get(id);
    if (!item) {
      problems.push({ file: csv.file, line, message: `(${b}, ${id}) is not in items/samples/${b}.jsonl; counted, as its own cluster, without a chance level` });
      item = { item_id: id, video_id: null, cluster: `item:${b}/${id}`, options: null, answer: ca >= 0 ? (r[ca] ?? '') : '' };
      table.items.set(id, item);
    }
    let byItem = table.rows.get(cond);
    if (!byItem) table.rows.set(cond, (byItem = new Map()));
    if (byItem.has(id)) {
      problems.push({ file: csv.file, line, message: `second row for (${b}, ${id}, ${cond}); the first is counted` });
      continue;
    }
    const status = cs >= 0 ? (r[cs] ?? '') : 'ok';
    const rawCorrect = ck >= 0 ? (r[ck] ?? '') : '';
    let correct: 0 | 1 | null = null;
    if (status === 'ok') {
      if (rawCorrect === '1' || rawCorrect === '0') correct = rawCorrect === '1' ? 1 : 0;
      else problems.push({ file: csv.file, line, message: `ok row with correct '${rawCorrect}' (expected 1 or 0); not counted as an answer` });
    }
    const nf = cn >= 0 && r[cn] !== '' && r[cn] !== undefined ? Number(r[cn]) : NaN;
    byItem.set(id, { status, pred: cp >= 0 ? (r[cp] ?? '') : '', correct, nFrames: Number.isFinite(nf) ? nf : null });
  }
  return { benchmarks: [...tables.values()], problems, rowsRead: csv.rows.length };
}
