// The mean frames the answered rows of each benchmark × condition really sent (results CSV, `n_frames`): the
// frame-rate ladder's x position depends on each video's length, so the card takes it from the rows.
// Skips what it cannot read: an odd row moves a mean by nothing that matters on a log axis, and the findings
// themselves come from the findings computation, not from here.
import { promises as fs } from 'node:fs';
import { parse as parseSync } from 'csv-parse/sync';

export type MeanFrames = Record<string, Record<string, number>>;

/** The means over the whole file as it is now (a torn last line is left out). */
export async function meanFramesByCell(csvFile: string): Promise<MeanFrames> {
  return new FramesSentTracker(csvFile).read();
}

/**
 * The means, kept up to date as the sweep appends rows (the CSV is append-only, SPEC §4): each read parses
 * only the complete lines added since the last one, so a panel that follows a live sweep never reparses the
 * whole file. A file that shrank (replaced, merged) is read again from its start.
 */
export class FramesSentTracker {
  private offset = 0;
  private header: string[] | null = null;
  private sums = new Map<string, Map<string, { n: number; frames: number }>>();

  constructor(private readonly csvFile: string) {}

  private reset(): void {
    this.offset = 0;
    this.header = null;
    this.sums = new Map();
  }

  /** Reads one at a time: two overlapping reads would count the same appended rows twice. */
  private queue: Promise<unknown> = Promise.resolve();

  read(): Promise<MeanFrames> {
    const next = this.queue.then(() => this.readNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async readNow(): Promise<MeanFrames> {
    const size = await fs.stat(this.csvFile).then(
      (s) => s.size,
      () => -1,
    );
    if (size < this.offset) this.reset();
    if (size > this.offset) await this.consume(size);
    const out: MeanFrames = {};
    for (const [b, byCond] of this.sums) out[b] = Object.fromEntries([...byCond].map(([c, s]) => [c, s.frames / s.n]));
    return out;
  }

  private async consume(size: number): Promise<void> {
    const fh = await fs.open(this.csvFile, 'r');
    let buf: Buffer;
    try {
      buf = Buffer.alloc(size - this.offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      buf = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
    const end = buf.lastIndexOf(0x0a) + 1; // complete lines only: a torn tail waits for its newline
    if (end === 0) return;
    let records: string[][];
    try {
      records = parseSync(buf.subarray(0, end), { relax_column_count: true, skip_records_with_error: true, bom: this.offset === 0 });
    } catch {
      return; // cut inside a quoted field: read again once the rest is there
    }
    if (!this.header) this.header = records.shift() ?? null;
    this.offset += end;
    if (!this.header) return;
    const col = (name: string) => this.header!.indexOf(name);
    const [bi, ci, si, fi] = [col('benchmark'), col('condition'), col('status'), col('n_frames')];
    if (bi < 0 || ci < 0 || si < 0 || fi < 0) return;
    for (const r of records) {
      const frames = Number(r[fi]);
      if (r[si] !== 'ok' || !r[bi] || !r[ci] || !r[fi] || !Number.isFinite(frames) || frames <= 0) continue;
      let byCond = this.sums.get(r[bi]);
      if (!byCond) this.sums.set(r[bi], (byCond = new Map()));
      const s = byCond.get(r[ci]) ?? { n: 0, frames: 0 };
      s.n++;
      s.frames += frames;
      byCond.set(r[ci], s);
    }
  }
}
