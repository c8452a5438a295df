// The start of a Frames × Pixels sweep: the results as they are (resume repair: torn tails aside, rows
// completed from raw records that lost theirs), the package (its problems to runner.log with
// file:line), the plan over what is left, and the per-cell book, which counts the units that failed in
// an earlier run as failed-before until asked again (as the dry run counts them).
import type { PackageLayout } from '../package/layout';
import { loadPackage } from '../package/load';
import { readFailedKeys } from '../package/failedKeys';
import { CellBook } from './cells';
import type { RunnerLog } from '../../../runner/logs';
import { resumeResults, type ResumeResult } from './resume';
import type { RunOptions } from './runOptions';
import { applyShard } from '../shard/shard';
import { buildWorkPlan, type WorkPlan } from '../plan';

export interface FpSweepPlan {
  resumed: ResumeResult;
  plan: WorkPlan;
  book: CellBook;
  /** Requests to send. */
  todoCount: number;
  /** failures.jsonl's lines as failureSignature (a unit without a video logged once, not at every run). */
  loggedFailures: ReadonlySet<string>;
}

export async function openFpSweep(
  layout: PackageLayout,
  opts: RunOptions,
  run: { benchmarks: string[] | undefined; conditions: string[]; log: RunnerLog; startedAt: number },
): Promise<FpSweepPlan> {
  const { log } = run;
  const resumed = await resumeResults(layout);
  const rep = resumed.report;
  if (rep.csvTorn) await log.warn(`results CSV: torn last line (${rep.csvTorn.bytes} bytes, ${rep.csvTorn.reason}) moved to ${layout.resultsCsvTorn}`);
  for (const t of rep.rawTorn) await log.warn(`${t.file}: torn last line (${t.bytes} bytes, ${t.reason}) moved to ${t.sideFile}`);
  for (const r of rep.completed) await log.info(`resume: CSV row completed from its raw record for (${r.benchmark}, ${r.item_id}, ${r.condition})`);
  for (const n of rep.notes) await log.warn(n);
  for (const p of resumed.csv.problems) await log.problem(p);
  try {
    return { resumed, ...(await planRest(layout, opts, run, resumed)) };
  } catch (err) {
    await resumed.writer.close().catch(() => undefined);
    throw err;
  }
}

async function planRest(
  layout: PackageLayout,
  opts: RunOptions,
  run: { benchmarks: string[] | undefined; conditions: string[]; log: RunnerLog; startedAt: number },
  resumed: ResumeResult,
): Promise<Omit<FpSweepPlan, 'resumed'>> {
  const { log } = run;
  // --shard K/N: the shard's items only, so the plan, the cells and the status count the shard's own work.
  const pkg = applyShard(await loadPackage(layout, { benchmarks: run.benchmarks }), opts.shard);
  for (const p of pkg.problems) await log.problem(p);
  const plan = await buildWorkPlan(pkg, resumed.csv, { conditions: run.conditions, metaCache: 'update' });
  const itemCounts = new Map([...pkg.items].map(([b, items]) => [b, items.length]));
  const failedBefore = await readFailedKeys(layout.failuresLog);
  for (const p of failedBefore.problems) await log.problem(p);
  const book = new CellBook(plan, itemCounts, run.startedAt, failedBefore.keys);
  const todoCount = plan.units.filter((u) => u.status === 'todo').length;
  await log.info(
    `plan: ${plan.units.length} unit(s) to resolve — ${todoCount} request(s) over ${plan.videos.length} video(s), ` +
      `${plan.units.filter((u) => u.status === 'NA').length} NA, ${plan.units.filter((u) => u.status === 'reuse').length} reuse, ` +
      `${plan.units.filter((u) => u.status === 'no_video' || u.status === 'bad_meta').length} without video`,
  );
  return { plan, book, todoCount, loggedFailures: failedBefore.signatures };
}
