// The one place rows are written (SPEC §4): the raw record is appended and fsynced first, then the CSV
// row is appended. Writes are serialized across the whole package, so at most one raw record can lack
// its CSV row after a crash, and resume (resume.ts) completes that row from the raw record instead
// of running the item again — no row lost, no raw line doubled.
import { promises as fs } from 'node:fs';
import type { PackageLayout } from '../package/layout';
import { CSV_HEADER, rawRecordSchema, type RawRecord } from '../package/schemas';
import type { DoneSet } from '../package/resultsCsv';
import { unitKey } from '../package/unitKey';
import { AppendFile, AppendFiles } from '../../../runner/appendFile';
import { csvHeaderLine, csvLine } from './csvRow';
import { mkdirUnder } from '../../../containment/rootFs';

export class DuplicateRowError extends Error {}

export class ResultsWriter {
  private readonly raw: AppendFiles;
  private readonly csv: AppendFile;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly written = new Set<string>();
  /** Rows appended by this writer, by status. */
  readonly added = { ok: 0, NA: 0, reuse: 0 };

  private constructor(
    readonly layout: PackageLayout,
    readonly header: readonly string[],
    private readonly done: DoneSet,
  ) {
    this.csv = new AppendFile(layout.root, layout.resultsCsv);
    this.raw = new AppendFiles(layout.root);
  }

  /**
   * Opens the writer. `header` is the existing CSV's own header, or null for a missing/empty CSV
   * (then the SPEC header is written first). `done` is the done-set read at start: a row for a key
   * already there is refused (a scheduler bug must never double a row).
   */
  static async open(layout: PackageLayout, header: readonly string[] | null, done: DoneSet): Promise<ResultsWriter> {
    await mkdirUnder(layout.root, layout.resultsDir);
    const w = new ResultsWriter(layout, header ?? CSV_HEADER, done);
    if (!header) {
      let size = 0;
      try {
        size = (await fs.stat(layout.resultsCsv)).size;
      } catch {
        size = 0;
      }
      if (size === 0) await w.csv.append(csvHeaderLine(CSV_HEADER), true);
    }
    return w;
  }

  isDone(benchmark: string, itemId: string, condition: string): boolean {
    return this.done.has(benchmark, itemId, condition) || this.written.has(unitKey(benchmark, itemId, condition));
  }

  /** Raw record (fsynced), then CSV row. Resolves when both are written. */
  write(record: RawRecord): Promise<void> {
    const rec = rawRecordSchema.parse(record); // every key present, right types: fail before touching disk
    const key = unitKey(rec.benchmark, rec.item_id, rec.condition);
    if (this.isDone(rec.benchmark, rec.item_id, rec.condition)) {
      return Promise.reject(new DuplicateRowError(`a row for (${rec.benchmark}, ${rec.item_id}, ${rec.condition}) exists already; not written twice`));
    }
    this.written.add(key);
    const p = this.chain.then(async () => {
      const rawFile = this.layout.rawFile(rec.condition, rec.benchmark);
      await this.raw.get(rawFile).append(JSON.stringify(rec) + '\n', true);
      await this.csv.append(csvLine(this.header, rec));
      this.added[rec.status]++;
    });
    this.chain = p.catch(() => undefined);
    return p;
  }

  /**
   * Resume only: the CSV row of a raw record that is on disk but lost its row (a crash between the
   * two writes). Appends the row from the raw record; the raw line is not written again.
   */
  completeRow(record: RawRecord): Promise<void> {
    const key = unitKey(record.benchmark, record.item_id, record.condition);
    if (this.isDone(record.benchmark, record.item_id, record.condition)) return Promise.resolve();
    this.written.add(key);
    const p = this.chain.then(() => this.csv.append(csvLine(this.header, record), true));
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** Waits for pending writes, fsyncs the CSV, closes files. */
  async close(): Promise<void> {
    await this.chain;
    await this.raw.closeAll();
    await this.csv.close();
  }
}
