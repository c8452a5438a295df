// The mean frames the answered rows of each benchmark × condition really sent (results CSV, `n_frames`): the
// frame-rate ladder's x position depends on each video's length, so the card takes it from the rows.
// Streams the file (it grows to ~230k rows during a sweep) and skips what it cannot read: a torn last line
// or an odd row moves a mean by nothing that matters on a log axis, and the findings themselves come from
// the findings computation, not from here.
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

export type MeanFrames = Record<string, Record<string, number>>;

export async function meanFramesByCell(csvFile: string): Promise<MeanFrames> {
  const sums = new Map<string, Map<string, { n: number; frames: number }>>();
  const input = createReadStream(csvFile);
  const parser = parse({ columns: true, relax_column_count: true, skip_records_with_error: true, bom: true });
  // pipe() does not pass the file's errors on (a missing file would escape as an uncaught error).
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  try {
    for await (const r of parser as AsyncIterable<Record<string, string | undefined>>) {
      const frames = Number(r.n_frames);
      if (r.status !== 'ok' || !r.benchmark || !r.condition || !r.n_frames || !Number.isFinite(frames) || frames <= 0) continue;
      let byCond = sums.get(r.benchmark);
      if (!byCond) sums.set(r.benchmark, (byCond = new Map()));
      const s = byCond.get(r.condition) ?? { n: 0, frames: 0 };
      s.n++;
      s.frames += frames;
      byCond.set(r.condition, s);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const out: MeanFrames = {};
  for (const [b, byCond] of sums) out[b] = Object.fromEntries([...byCond].map(([c, s]) => [c, s.frames / s.n]));
  return out;
}
