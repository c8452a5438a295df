// The package's dry-run summary and its predicted context refusals (SPEC §2.5), from the dry run.
import type { DoctorLine } from '../../../doctor/schema';
import { DEFAULT_CONDITIONS } from '../rules';
import { dryRun } from '../dryrun/dryRun';
import type { WorkPlan } from '../plan/types';

/** The package's lines, and the dry run's plan (null when it failed) for the frame-store estimate. */
export async function checkPackage(packageDir: string): Promise<{ lines: DoctorLine[]; plan: WorkPlan | null }> {
  let r;
  try {
    r = await dryRun(packageDir, { conditions: DEFAULT_CONDITIONS, keepPlan: true });
  } catch (err) {
    return {
      plan: null,
      lines: [
        {
          id: 'package',
          title: 'run package (dry run)',
          status: 'fail',
          detail: (err as Error).message,
          action: 'check --package (it must hold items/samples/, manifest/ and data/store/normalized/)',
        },
      ],
    };
  }
  const t = r.totals;
  const benches = new Set(r.rows.map((x) => x.benchmark)).size;
  const lines: DoctorLine[] = [];
  const missingVideos = t.no_video + t.bad_meta;
  const summary =
    `${benches} benchmark(s) × ${DEFAULT_CONDITIONS.length} conditions: ` +
    `todo ${t.todo}, NA ${t.NA}, reuse ${t.reuse}, done ${t.done}, no_video ${t.no_video}, bad_meta ${t.bad_meta}`;
  const problems = r.problems.length + (r.torn ? 1 : 0);
  const firstProblem = r.problems[0] ? `${r.problems[0].file}:${r.problems[0].line}: ${r.problems[0].message}` : r.torn?.reason;
  lines.push({
    id: 'package',
    title: 'run package (dry run)',
    status: problems ? 'warn' : 'ok',
    detail: `${summary}${problems ? `; ${problems} problem(s) in the package's files, first: ${firstProblem}` : ''}`,
    action: problems
      ? '`fpsweep dry-run` lists them with file and line; bad lines are skipped and reported, the rest runs'
      : missingVideos
        ? `items without a video (${missingVideos}) are logged as failures (seed §7: expected for a few)`
        : null,
  });
  const refusals = t.context_refusals;
  const worst = r.rows
    .filter((x) => x.context_refusals > 0)
    .sort((a, b) => b.context_refusals - a.context_refusals)
    .slice(0, 3);
  lines.push({
    id: 'context_refusals',
    title: 'predicted context refusals',
    status: refusals ? 'warn' : 'ok',
    detail: refusals
      ? `${refusals} request(s) would exceed 65,536 tokens as vLLM counts them (SPEC §2.5), ` +
        `e.g. ${worst.map((x) => `${x.benchmark} × ${x.condition}: ${x.context_refusals}`).join(', ')}`
      : 'no request is predicted to exceed 65,536 tokens',
    action: refusals ? 'nothing to change: the protocol stays as it is; these are logged as `context` failures and reported' : null,
  });
  return { lines, plan: r.plan ?? null };
}
