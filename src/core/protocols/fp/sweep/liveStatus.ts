// A sweep's status as a reader should see it: the worker's status file (../status/status.ts) while it is
// alive; otherwise `done` recomputed from the results CSV (the artifacts are the truth).
import type { PackageLayout } from '../package/layout';
import { readResultsCsv } from '../package/resultsCsv';
import type { WorkerStatus } from '../status/statusSchema';
import { liveLockHolder } from '../../../runner/lock';
import { readStatus } from '../status/status';
import { parseShard, shardDoneCounts } from '../shard/shard';

export interface LiveStatus {
  status: WorkerStatus | null;
  /** A worker holds the package lock and its process is alive. */
  alive: boolean;
  pid: number | null;
}

/**
 * The status as a reader should see it: the worker's file when it is alive; otherwise the last file
 * with `done` recomputed from the CSV and a state that says the worker is gone (a worker that died
 * while `running` shows `failed` with a message pointing at logs/runner.log).
 */
export async function readLiveStatus(layout: PackageLayout): Promise<LiveStatus> {
  const holder = await liveLockHolder(layout);
  const status = await readStatus(layout);
  // A worker that has not written its first status yet: what the file holds is the previous run's.
  if (holder) return { status: status && status.pid === holder.pid ? status : null, alive: true, pid: holder.pid };
  if (!status) return { status: null, alive: false, pid: null };
  // A shard's copy holds every shard's origin rows: count only the shard's own items.
  const doneCount = status.shard
    ? await shardDoneCounts(layout.root, parseShard(status.shard))
    : (
        (csv) => (b: string, c: string) =>
          csv.done.count(b, c)
      )(await readResultsCsv(layout.resultsCsv));
  let done = 0;
  for (const c of status.cells) {
    const now = doneCount(c.benchmark, c.condition);
    c.done = now;
    c.todo = Math.max(0, c.total - c.done - c.failed - c.noVideo);
    // Rows written after the last status may be earlier failures asked again: failed-before is part of todo.
    c.failedBefore = Math.min(c.failedBefore, c.todo);
    done += now;
  }
  status.totals.done = done;
  status.totals.inFlight = 0;
  status.totals.todo = status.cells.reduce((s, c) => s + c.todo, 0);
  status.totals.failedBefore = status.cells.reduce((s, c) => s + c.failedBefore, 0);
  if (!['done', 'failed', 'stopped'].includes(status.state)) {
    status.message = `the worker (pid ${status.pid}) is no longer running and did not finish; see logs/runner.log, then run again to resume`;
    status.state = 'failed';
  }
  return { status, alive: false, pid: null };
}
