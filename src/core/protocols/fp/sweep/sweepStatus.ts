// The sweep's status file, wired to the run: its identity, the live counts read from the run's parts at each
// write, and the session's tick (server health's all-down rule, the metrics poll, the status write).
import { formatShard } from '../shard/shard';
import type { WorkPlan } from '../plan';
import type { WorkerStatus } from '../status/statusSchema';
import type { CellBook } from './cells';
import { FpStatusReporter } from './fpStatus';
import { fpHostCpuKnob } from './fpHostCpu';
import type { ResultsWriter } from './resultsWriter';
import type { RunOptions } from './runOptions';
import type { SweepRun } from './sweepRun';

export function sweepStatus(
  run: SweepRun,
  opts: RunOptions,
  fp: { plan: WorkPlan; book: CellBook; writer: ResultsWriter },
  onStatus?: (s: WorkerStatus) => void,
): FpStatusReporter {
  const { session, log } = run;
  const status = new FpStatusReporter(
    run.layout,
    {
      runId: run.runId,
      pid: process.pid,
      startedAt: run.startedAt,
      mode: opts.benchmarks || opts.conditions ? 'custom' : opts.pilot ? 'pilot' : 'full',
      shard: opts.shard ? formatShard(opts.shard) : null,
      benchmarks: fp.plan.benchmarks,
      conditions: fp.plan.conditions,
    },
    {
      cells: () => fp.book.progress(),
      inFlight: () => run.inFlight(),
      addedThisRun: () => fp.writer.added.ok + fp.writer.added.NA + fp.writer.added.reuse,
      servers: () => {
        const v = run.verdicts();
        return (run.health?.status((i) => run.servers?.restarts(i) ?? 0) ?? []).map((sv, i) => ({ ...sv, bottleneck: v[i] ?? null }));
      },
      stopReason: () => session.stopper.stopReason,
      hostCpu: () => run.hostCpu?.status() ?? null,
      hostCpuKnob: (s) => fpHostCpuKnob(s, run.placement),
    },
    onStatus,
  );
  run.status = status;
  session.onTick(() => {
    run.health?.tick();
    run.metrics?.tick();
    run.hostCpu?.tick(performance.now());
    status.write().catch((err) => void log.error(`status file: ${(err as Error).message}`));
  });
  return status;
}
