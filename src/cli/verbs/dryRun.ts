// fpsweep dry-run: what a run would do, per benchmark × condition, without sending anything.
import { formatLineProblem } from '../../core/errors';
import { dryRun, dryRunJson, formatDryRunTable } from '../../core/protocols/fp/dryrun/dryRun';
import { DEFAULT_CONDITIONS, PILOT_BENCHMARKS } from '../../core/protocols/fp/rules/conditions';
import {
  checkBenchmarks,
  fpPackageRoot,
  listFlag,
  listOption,
  parseVerbArgs,
  pilotOption,
  requirePackage,
  shardOption,
  type OptionSpec,
} from '../../core/cli/options';
import { formatShard } from '../../core/protocols/fp/shard/shard';

export const summary = 'per benchmark × condition: todo, NA, reuse, done, no_video (--json too)';

const HELP = `usage: fpsweep dry-run --package DIR [--bench A,B] [--conds c1,c2] [--pilot] [--shard K/N] [--json]

Counts, per benchmark × condition, the items a run would send (todo), write as NA, write as reuse,
skip (done: a row exists) or fail (no_video, bad_meta), the todo items a 65,536-token server
is predicted to refuse (ctx_refusals), and the items still to write whose last attempt failed
(failed_before, from data/logs/failures.jsonl; a run asks them again). Reads only; sends nothing.

  --package DIR   the run package (or FPSWEEP_PACKAGE)
  --bench A,B     only these benchmarks (default: BENCH, else all)
  --conds c1,c2   only these conditions (default: CONDS, else the 13 task-11 conditions)
  --pilot         the pilot benchmarks (${PILOT_BENCHMARKS.join(', ')}; or PILOT=1)
  --shard K/N     count only shard K of N (SHARD), as \`run --shard K/N\` would run it
  --json          print one JSON object {"rows": [...], "totals": {...}}

Rerun: reads only: counts again and writes nothing.`;

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  bench: { type: 'string', value: { kind: 'list' } },
  conds: { type: 'string', value: { kind: 'list', env: 'CONDS' } },
  pilot: { type: 'boolean' },
  json: { type: 'boolean' },
  shard: { type: 'string' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const values = parseVerbArgs(args, flags, HELP);
  const root = requirePackage(values, HELP, fpPackageRoot);
  // --bench beats --pilot, which beats the BENCH knob (a flag on the command line is the latest word).
  const benchmarks = listFlag(values, 'bench') ? listFlag(values, 'bench') : pilotOption(values.pilot) ? [...PILOT_BENCHMARKS] : listOption(undefined, 'BENCH');
  // A named benchmark the package lacks is exit 2 naming those it has (--pilot's own check names the pilot's).
  checkBenchmarks(listFlag(values, 'bench') ? '--bench' : 'BENCH', root, listFlag(values, 'bench') ?? (pilotOption(values.pilot) ? undefined : benchmarks));
  const conditions = listFlag(values, 'conds') ?? [...DEFAULT_CONDITIONS];
  const shard = shardOption(values.shard);
  const report = await dryRun(root, { benchmarks, conditions, shard });
  if (shard) (values.json ? process.stderr : process.stdout).write(`shard ${formatShard(shard)}: the counts are this shard's own items\n`);
  for (const p of report.problems) process.stderr.write(formatLineProblem(p) + '\n');
  if (report.torn) {
    process.stderr.write(
      `results/conditions_results.csv: torn last line at byte ${report.torn.offset} (${report.torn.reason}); ` +
        'a run moves it to conditions_results.csv.torn\n',
    );
  }
  for (const c of report.addedConditions) {
    process.stderr.write(`${c} added: reuse rows need it (SPEC §2.4) and it was not among the conditions\n`);
  }
  if (values.json) process.stdout.write(dryRunJson(report) + '\n');
  else {
    process.stdout.write(formatDryRunTable(report) + '\n');
    if (report.problems.length) process.stdout.write(`${report.problems.length} problem(s) in the package's files: see above\n`);
  }
  return 0;
}
