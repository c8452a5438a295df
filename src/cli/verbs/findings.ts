// fpsweep findings --package DIR [--json] [--delta 3] [--flips] [--follow]: per benchmark, pixels, frames, both or neither.
import { fpPackageRoot, numberFlag, parseVerbArgs, requirePackage, type OptionSpec } from '../../core/cli/options';
import { computeFindings, findingsTable, loadFindingsInput, DEFAULT_DELTA_PTS, FindingsFollower, type FindingsOptions } from '../../core/protocols/fp/findings';
import { UsageError } from '../../core/errors';
import * as readline from 'node:readline';
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
--flips     with --json: add the items that flip in each contrast, with every condition's answer
--follow    with --json: stay up and answer each line read on stdin with one JSON line,
            {stamp, findings, framesSent} (the mean frames each benchmark × condition sent), or
            {stamp, unchanged: true} when no input changed; only what changed is read again (the
            findings panel follows a running sweep this way). Ends when stdin ends.

Rerun: reads only: the same findings for the same results, nothing written.`;

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  json: { type: 'boolean' },
  delta: { type: 'string', meta: 'PTS', value: { kind: 'number', min: 0.01, max: 100, env: 'FPSWEEP_FINDINGS_DELTA', default: DEFAULT_DELTA_PTS } },
  flips: { type: 'boolean' },
  follow: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = requirePackage(v, HELP, fpPackageRoot);
  const deltaPts = numberFlag(v, 'delta')!;
  const opts: FindingsOptions = { deltaPts, flips: v.flips === true };
  if (v.follow) {
    if (!v.json) throw new UsageError(`--follow needs --json\n\n${HELP}`);
    return follow(packageDir, opts);
  }
  const input = await loadFindingsInput(packageDir);
  const findings = computeFindings(input, opts);
  for (const p of input.problems.slice(0, 20)) process.stderr.write(`${formatLineProblem(p)}\n`);
  if (input.problems.length > 20) process.stderr.write(`… and ${input.problems.length - 20} more problem(s)\n`);
  process.stdout.write(v.json ? JSON.stringify(findings) + '\n' : findingsTable(findings) + '\n');
  return 0;
}

/** --follow: one JSON line per line read on stdin, until stdin ends. */
async function follow(packageDir: string, opts: FindingsOptions): Promise<number> {
  const follower = new FindingsFollower(packageDir, opts);
  let said = '';
  for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    void line;
    const f = await follower.read();
    if (f.stamp === said) {
      process.stdout.write(JSON.stringify({ stamp: f.stamp, unchanged: true }) + '\n');
      continue;
    }
    // The package's problems once, as the plain verb says them; later answers only carry the numbers.
    if (!said) for (const p of f.problems.slice(0, 20)) process.stderr.write(`${formatLineProblem(p)}\n`);
    said = f.stamp;
    process.stdout.write(JSON.stringify({ stamp: f.stamp, findings: f.findings, framesSent: f.framesSent }) + '\n');
  }
  return 0;
}
