// The sweep's status file (.fpsweep/status.json, schema in statusSchema.ts), through the engine's atomic
// status writer (statusFile.ts). Counts come from the plan and the artifacts written so far; the file adds the
// live figures (in flight, throughput, ETA, servers). When no worker is alive, readers recompute `done` from the
// artifacts (Frames × Pixels: protocols/fp/sweep/liveStatus.ts).
import type { PackageLayout } from '../package/layout';
import { readStatusFile, writeStatusAtomic as writeAtomic } from '../../../runner/statusFile';
import { workerStatusSchema, type WorkerStatus } from './statusSchema';

export async function writeStatusAtomic(layout: Pick<PackageLayout, 'root' | 'statusFile'>, status: WorkerStatus): Promise<void> {
  await writeAtomic(layout.root, layout.statusFile, workerStatusSchema, status);
}

/** The last status the worker wrote, or null (none yet, or not a status file we understand). */
export function readStatus(layout: Pick<PackageLayout, 'statusFile'>): Promise<WorkerStatus | null> {
  return readStatusFile(layout.statusFile, workerStatusSchema);
}
