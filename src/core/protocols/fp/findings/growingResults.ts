// The results CSV of a running sweep, read as it grows (the CSV is append-only, SPEC §4): the first read is
// readResultsCsv's, each later one parses only the complete lines appended since (scanResultsCsv on the header
// and the new bytes: a torn or short last line waits for the rest, as the one-shot read leaves it out). A file
// that shrank or changed its header is read again from its start. The rows are the one-shot read's rows.
import { promises as fs } from 'node:fs';
import type { LineProblem } from '../../../errors';
import { readResultsCsv, scanResultsCsv } from '../package/resultsCsv';
import type { CsvRowsSource } from './table';

export interface GrownResults extends CsvRowsSource {
  /** The file's problems, from the first (whole) read only. */
  problems: LineProblem[];
}

export class GrowingResults {
  private state: { header: string[]; headerBytes: Buffer; rows: string[][]; offset: number } | undefined;

  constructor(private readonly file: string) {}

  async read(): Promise<GrownResults> {
    const size = await fs.stat(this.file).then(
      (s) => s.size,
      () => -1,
    );
    const s = this.state;
    if (!s || size < s.offset) return this.readWhole();
    if (size > s.offset) {
      const fh = await fs.open(this.file, 'r');
      let added: Buffer;
      try {
        added = Buffer.alloc(size - s.offset);
        added = added.subarray(0, (await fh.read(added, 0, added.length, s.offset)).bytesRead);
      } finally {
        await fh.close();
      }
      const scanned = scanResultsCsv(Buffer.concat([s.headerBytes, added]), this.file, true);
      if (scanned.header?.join('\n') !== s.header.join('\n')) return this.readWhole();
      for (const r of scanned.records) s.rows.push(r.record);
      s.offset += scanned.completeLength - s.headerBytes.length;
    }
    return { file: this.file, header: s.header, rows: s.rows, problems: [] };
  }

  private async readWhole(): Promise<GrownResults> {
    const csv = await readResultsCsv(this.file, { keepRows: true });
    this.state = undefined;
    if (csv.header) {
      const head = await fs.readFile(this.file).then((b) => b.subarray(0, b.indexOf(0x0a) + 1));
      // Follow on only when the header line is what the whole read parsed (a file replaced meanwhile: read again next time).
      if (head.length) this.state = { header: csv.header, headerBytes: Buffer.from(head), rows: [...csv.rows], offset: csv.completeLength };
    }
    return { file: this.file, header: csv.header, rows: csv.rows, problems: csv.problems };
  }
}
