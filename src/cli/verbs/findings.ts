// fpsweep findings --package DIR [--json] [--delta 3] [--flips]: per benchmark, pixels, frames, both or neither.
import { numberOption, parseVerbArgs, requirePackage } from '../options';
import { computeFindings, findingsTable, loadFindingsInput, DEFAULT_DELTA_PTS } from '../../core/protocols/fp/findings';
import { formatLineProblem } from '../../core/errors';

export const summary = 'per benchmark: accuracy, paired contrasts and the verdict (pixels, frames, both, neither…)';

const HELP = `usage: fpsweep findings --package DIR [--json] [--delta PTS] [--flips]

Reads results/conditions_results.csv (as it is now: the sweep may be running), the items and the
manifest, and prints per benchmark the accuracy per condition (Wilson 95 %), the paired contrasts
pixels (v_32_s448 − v_32_s168), frames (v_128_s224 − v_8_s224), video (v_32 − v_blind) and temporal
(v_32 − v_1) with a cluster-robust 95 % interval (videos as clusters), McNemar's exact p, BH q, the
detectable effect, and the verdict. A contrast with fewer than 100 pairs leaves the verdict pending.
--json      print the findings as JSON
--delta     δ, the smallest effect that matters, in accuracy points (default ${DEFAULT_DELTA_PTS})
--flips     with --json: add the items that flip in each contrast, with every condition's answer`;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, { json: { type: 'boolean' }, delta: { type: 'string' }, flips: { type: 'boolean' } }, HELP);
  const packageDir = requirePackage(v, HELP);
  const deltaPts = numberOption(v.delta, 'FPSWEEP_FINDINGS_DELTA', DEFAULT_DELTA_PTS, 0.01, 100);
  const input = await loadFindingsInput(packageDir);
  const findings = computeFindings(input, { deltaPts, flips: v.flips === true });
  for (const p of input.problems.slice(0, 20)) process.stderr.write(`${formatLineProblem(p)}\n`);
  if (input.problems.length > 20) process.stderr.write(`… and ${input.problems.length - 20} more problem(s)\n`);
  process.stdout.write(v.json ? JSON.stringify(findings) + '\n' : findingsTable(findings) + '\n');
  return 0;
}
