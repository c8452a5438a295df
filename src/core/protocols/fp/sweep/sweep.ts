// runSweep: one run of the sweep on a package, start to end. The foreground `run` verb and the detached
// worker both call it. It is the run's steps, each in its own file: the run and its session (sweepRun.ts),
// the identity line (announceSweep), the plan (fpPlan.ts), the status file (sweepStatus.ts), the requests
// through the engine's request runner (sendPlan.ts), the end (sweepEnd.ts).
// Order of work:
//   lock → resume repair → load package → plan → NA / stored-reuse rows and no_video failures at once
//   → servers → pre-flight → scheduler over the plan's videos → rows written raw-then-CSV → timing per
//   cell → status file each second → summary line → lock released.
// A stop request (SIGTERM or the stop file) drains: no new request, the in-flight ones finish and their
// rows are written. A stop by the run's own judgement (fail-fast, pre-flight, no server left) fails the
// run (stopReason in the status file, exit 1): in-flight ones cut after STOP_GRACE_MS, unsent units stay todo.
import * as os from 'node:os';
import { formatShard } from '../shard/shard';
import { DEFAULT_CONDITIONS, PILOT_BENCHMARKS } from '../rules/conditions';
import { makeRunIdentity, writeRunIdentity } from '../../../runner/identity';
import { FpOutcomes } from './fpOutcomes';
import { openFpSweep } from './fpPlan';
import type { RunOptions } from './runOptions';
import { sendPlan, type SweepServing } from './sendPlan';
import { endSweep, failSweep, type SweepResult } from './sweepEnd';
import { SweepRun } from './sweepRun';
import { sweepStatus } from './sweepStatus';
import type { WorkerStatus } from '../status/statusSchema';

export type { SweepResult } from './sweepEnd';

/** Starts (or attaches to) the servers; makes the frame source. */
export type SweepDeps = SweepServing;

export interface SweepHooks {
  /** Progress lines for a foreground run (stderr). */
  onLine?(line: string): void;
  /** Every status write (the foreground progress display). */
  onStatus?(s: WorkerStatus): void;
  /** Resolves/aborts to ask for a drain from inside the process (tests, the extension host). */
  stopSignal?: AbortSignal;
}

export function runSweep(opts: RunOptions, deps: SweepDeps, hooks: SweepHooks = {}): Promise<SweepResult> {
  return SweepRun.run(opts, hooks, Date.now(), async (run) => {
    try {
      const { benchmarks, conditions } = await announceSweep(run, opts);
      const { resumed, plan, book, todoCount, loggedFailures } = await openFpSweep(run.layout, opts, {
        benchmarks,
        conditions,
        log: run.log,
        startedAt: run.startedAt,
      });
      const writer = resumed.writer;
      run.writer = writer;
      const outcomes = new FpOutcomes(plan, { writer, failures: run.failures, timing: run.timing, book, runId: run.runId, loggedFailures });
      const status = sweepStatus(run, opts, { plan, book, writer }, hooks.onStatus);
      await status.write();
      // Rows that need no request, and failures that need no attempt: written once the pre-flight passed
      // (or at once when no request is to be sent), so a run refused by its servers writes no row.
      const writeNoRequestRows = async () => {
        status.state = 'running';
        await outcomes.writeNoRequestRows();
      };
      if (todoCount === 0 || run.session.drain.requested) await writeNoRequestRows();
      else await sendPlan(run, opts, deps, { plan, outcomes, status, writeNoRequestRows });
      return await endSweep(run, { resumed, book, outcomes, status });
    } catch (err) {
      return await failSweep(run, err);
    }
  });
}

/** The run's identity line (logs/run_identity.jsonl) and its first log line: what was asked, on what. */
async function announceSweep(run: SweepRun, opts: RunOptions): Promise<{ benchmarks: string[] | undefined; conditions: string[] }> {
  const benchmarks = opts.benchmarks ?? (opts.pilot ? [...PILOT_BENCHMARKS] : undefined);
  const conditions = opts.conditions ?? [...DEFAULT_CONDITIONS];
  const identity = makeRunIdentity(run.runId, { ...opts, benchmarks, conditions }, opts.endpoints ?? []);
  await writeRunIdentity(run.layout, identity);
  await run.log.info(
    `run ${run.runId} starting: pid ${process.pid} on ${os.hostname()}, commit ${identity.git_commit ?? '(none)'}, ` +
      `${identity.fpsweep_version ?? ''}, node ${process.version}; ${benchmarks ? `benchmarks ${benchmarks.join(',')}` : 'all benchmarks'}; ` +
      `conditions ${conditions.join(',')}; workers ${opts.workers}/server${opts.shard ? `; shard ${formatShard(opts.shard)}` : ''}`,
  );
  return { benchmarks, conditions };
}
