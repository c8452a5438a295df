// The host CPU record of a run root (issue 34): one JSON line a measured window (hostCpuSampler.ts writes them),
// each naming its run and the run's mode, so a later run can find what a pilot measured (`--frames-on auto`). The
// lines' schema and the status's summary are hostCpuStatus.ts's. The file is our working state (under .fpsweep/, not in the returns) and
// bounded: it is set aside as <name>.1.jsonl (one generation kept) when a run starts on it above MAX_RECORD_BYTES,
// and a run writes at most a logarithmic number of lines (the sampler's window doubles as the lines grow).
import { promises as fs } from 'node:fs';
import { parseBoundedJson } from '../io/boundedJson';
import { renameUnder } from '../containment/rootFs';
import { sumWindows, type HostCpuMeasure } from './hostCpu';
import { hostCpuLineSchema, lineMeasure, type HostCpuLine } from './hostCpuStatus';

/** Set aside above this size when a run starts (a 10 s window is ~200 bytes: ~5,000 windows). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Read at most this much of the end of a record (a record grown past its bound by hand is read, not refused). */
const READ_TAIL_BYTES = 4 * MAX_RECORD_BYTES;

/** The record's file set aside as <name>.1.jsonl when it has grown past MAX_RECORD_BYTES (the older one dropped). */
export async function setAsideLargeRecord(root: string, file: string): Promise<boolean> {
  const size = (await fs.stat(file).catch(() => null))?.size ?? 0;
  if (size <= MAX_RECORD_BYTES) return false;
  await renameUnder(root, file, previousRecord(file));
  return true;
}

/** Where a large record is set aside (PackageLayout's hostCpuRecordAside). */
export function previousRecord(file: string): string {
  return file.replace(/(\.jsonl)?$/, '.1.jsonl');
}

async function readTail(file: string): Promise<string> {
  const h = await fs.open(file, 'r').catch(() => null);
  if (!h) return '';
  try {
    const size = (await h.stat()).size;
    const start = Math.max(0, size - READ_TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await h.read(buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text; // a cut first line is dropped
  } finally {
    await h.close();
  }
}

/** Every whole, valid line of the record (the set-aside generation first); a torn or foreign line is passed over. */
export async function readHostCpuLines(file: string): Promise<HostCpuLine[]> {
  const out: HostCpuLine[] = [];
  for (const f of [previousRecord(file), file]) {
    for (const line of (await readTail(f)).split('\n')) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = parseBoundedJson(line, { file: f });
      } catch {
        continue;
      }
      const r = hostCpuLineSchema.safeParse(value);
      if (r.success) out.push(r.data);
    }
  }
  return out;
}

export interface RunHostCpu {
  runId: string;
  mode: string;
  measure: HostCpuMeasure;
  endedAt: string;
}

/** The last run in the record whose mode is `mode` (its windows summed); null when none measured. */
export async function lastRunHostCpu(file: string, mode: string): Promise<RunHostCpu | null> {
  const lines = (await readHostCpuLines(file)).filter((l) => l.mode === mode);
  if (!lines.length) return null;
  const runId = lines[lines.length - 1].runId;
  const own = lines.filter((l) => l.runId === runId);
  const measure = sumWindows(own.map(lineMeasure));
  return measure ? { runId, mode, measure, endedAt: own[own.length - 1].endedAt } : null;
}
