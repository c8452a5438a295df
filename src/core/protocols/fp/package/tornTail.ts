// A crash mid-append can leave a torn last line in results/conditions_results.csv. On start it is
// moved, byte for byte, to conditions_results.csv.torn (appended) and the CSV is cut back to its
// last complete line (SPEC §4). Call only while holding the package lock (the runner does).
import { promises as fs } from 'node:fs';
import type { PackageLayout } from './layout';
import { scanResultsCsv, type TornTail } from './resultsCsv';
import { openAppendUnder, openReadWriteUnder } from '../../../containment/rootFs';

export interface SetAsideResult {
  /** The torn bytes moved, or null when the CSV ended on a complete line. */
  torn: TornTail | null;
  /** True when the .torn file already ended with these bytes (a crash between the two steps). */
  alreadyThere: boolean;
}

async function endsWith(file: string, bytes: Buffer): Promise<boolean> {
  let fh;
  try {
    fh = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    const { size } = await fh.stat();
    if (size < bytes.length) return false;
    const tail = Buffer.alloc(bytes.length);
    await fh.read(tail, 0, bytes.length, size - bytes.length);
    return tail.equals(bytes);
  } finally {
    await fh.close();
  }
}

/**
 * Step 1: append the torn bytes to the .torn file (plus a newline when they lack one, so each torn
 * tail stays on its own line) and fsync it. Step 2: truncate the CSV to the last complete line and
 * fsync. A crash between the steps repeats step 2 on the next start without appending the same
 * bytes twice (the .torn file already ends with them). Nothing is ever lost.
 */
export async function setAsideTornTail(layout: PackageLayout): Promise<SetAsideResult> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(layout.resultsCsv);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { torn: null, alreadyThere: false };
    throw err;
  }
  const { torn } = scanResultsCsv(buf, layout.resultsCsv, false);
  if (!torn) return { torn: null, alreadyThere: false };
  const record = torn.bytes[torn.bytes.length - 1] === 0x0a ? torn.bytes : Buffer.concat([torn.bytes, Buffer.from('\n')]);
  const alreadyThere = await endsWith(layout.resultsCsvTorn, record);
  if (!alreadyThere) {
    const out = await openAppendUnder(layout.root, layout.resultsCsvTorn);
    try {
      await out.write(record);
      await out.sync();
    } finally {
      await out.close();
    }
  }
  const csv = await openReadWriteUnder(layout.root, layout.resultsCsv);
  try {
    await csv.truncate(torn.offset);
    await csv.sync();
  } finally {
    await csv.close();
  }
  return { torn, alreadyThere };
}
