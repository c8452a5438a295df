// The status file (.fpsweep/status.json, schema in statusSchema.ts). The worker rewrites it about once a
// second, atomically (temp file + rename), so a reader never sees half a file. Counts come from the plan
// and the artifacts written so far; the file adds the live figures (in flight, throughput, ETA, servers).
// When no worker is alive, readers recompute `done` from the artifacts (Frames × Pixels: protocols/fp/sweep/liveStatus.ts).
import { promises as fs } from 'node:fs';
import type { PackageLayout } from '../package/layout';
import { workerStatusSchema, type WorkerStatus } from './statusSchema';

let tmpSeq = 0;

export async function writeStatusAtomic(layout: PackageLayout, status: WorkerStatus): Promise<void> {
  await fs.mkdir(layout.stateDir, { recursive: true });
  const tmp = `${layout.statusFile}.${process.pid}.${++tmpSeq}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(workerStatusSchema.parse(status), null, 1) + '\n');
  await fs.rename(tmp, layout.statusFile);
}

/** The last status the worker wrote, or null (none yet, or not a status file we understand). */
export async function readStatus(layout: PackageLayout): Promise<WorkerStatus | null> {
  let text: string;
  try {
    text = await fs.readFile(layout.statusFile, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = workerStatusSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
