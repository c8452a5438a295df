// Which cutters run now, on disk, so that one left running by a worker that died (SIGKILL, the OOM killer) is ended
// by the next run instead of holding a GPU and writing for hours: one record per cutter under way,
// `.fpsweep-cut/cutters/<stem>.json` (its process group, its leader's start time, the run and rank that started it),
// written once it has started and removed when it has ended. A run reads them before it cuts anything.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { removeUnder } from '../../containment/rootFs';
import { writeFileAtomic } from '../../runner/atomicFile';
import { isWorkerAlive } from '../../runner/control';
import { endGroup, groupRuns, processStartTicks } from '../../runner/processGroup';
import { readTextIfExists } from '../../runner/stateRead';
import { cutRunRoot, type CutLayout } from './layout';
import { parseBoundedJson } from '../../io/boundedJson';

const cutterRecordSchema = z.object({
  stem: z.string(),
  /** The leader's pid: the group's id. */
  pgid: z.number().int().positive(),
  /** The leader's start time (processGroup.ts), or null where there is no /proc. */
  startTicks: z.string().nullable(),
  runId: z.string(),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  at: z.string(),
});
export type CutterRecord = z.infer<typeof cutterRecordSchema>;

const recordsDir = (layout: CutLayout) => layout.cutterRecordsDir;
const recordFile = (layout: CutLayout, stem: string) => layout.cutterRecord(stem);

export async function recordCutter(layout: CutLayout, stem: string, pgid: number, runId: string): Promise<void> {
  const record: CutterRecord = { stem, pgid, startTicks: await processStartTicks(pgid), runId, shard: layout.shard, at: new Date().toISOString() };
  await writeFileAtomic(layout.root, recordFile(layout, stem), JSON.stringify(record) + '\n');
}

export async function clearCutterRecord(layout: CutLayout, stem: string): Promise<void> {
  await removeUnder(layout.root, recordFile(layout, stem));
}

/** The records there are (a torn or foreign file is skipped: it names no process we could end safely; one that cannot be read throws). */
export async function readCutterRecords(layout: CutLayout): Promise<CutterRecord[]> {
  const names = await fs.readdir(recordsDir(layout)).catch(() => [] as string[]);
  const records: CutterRecord[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    // Gone since the listing (its cutter ended): none; unreadable: an error, as every state read (stateRead.ts).
    const text = await readTextIfExists(path.join(recordsDir(layout), name));
    if (text === null) continue;
    try {
      const r = cutterRecordSchema.safeParse(parseBoundedJson(text));
      if (r.success && `${r.data.stem}.json` === name) records.push(r.data);
    } catch {
      // torn: skipped
    }
  }
  return records;
}

export interface Reaped {
  record: CutterRecord;
  /** 'ended': it ran and was ended; 'gone': nothing of it ran any more; 'survived': it did not end (SIGKILL refused). */
  outcome: 'ended' | 'gone' | 'survived';
}

/**
 * Ends the cutters that earlier runs left running: every record not of `runId` whose run is no longer alive (this
 * rank's earlier runs: this run holds its lock; another rank's: its worker holds no lock). A record whose leader pid
 * runs with another start time names someone else's process now (our group is gone: a pid is not reused while its
 * group has processes) and is only removed. The records are removed once their groups have ended.
 */
export async function endOrphanedCutters(layout: CutLayout, runId: string): Promise<Reaped[]> {
  const reaped: Reaped[] = [];
  for (const record of await readCutterRecords(layout)) {
    if (record.runId === runId) continue;
    const owner = cutRunRoot(layout.root, record.shard);
    if (owner.lockFile !== layout.runRoot.lockFile && (await isWorkerAlive(owner))) continue;
    const ticks = await processStartTicks(record.pgid);
    const reused = ticks !== null && record.startTicks !== null && ticks !== record.startTicks;
    let outcome: Reaped['outcome'] = 'gone';
    if (!reused && (await groupRuns(record.pgid))) outcome = (await endGroup(record.pgid)) ? 'ended' : 'survived';
    if (outcome !== 'survived') await clearCutterRecord(layout, record.stem);
    reaped.push({ record, outcome });
  }
  return reaped;
}
