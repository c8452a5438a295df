// fpsweep report --package DIR [--json]: pilot timing (seed §4), extrapolation, wall time, rows
// added, failures, launch line, SPEC §6 checks; written to .fpsweep/reports/report.{md,json}.
import * as path from 'node:path';
import { parseVerbArgs, requirePackage, type OptionSpec } from '../../core/cli/options';
import { InputError } from '../../core/errors';
import { PROTOCOLS } from '../../core/protocols/registry';
import { fpProtocol } from '../../core/protocols/fp';
import { buildReport, writeReport } from '../../core/protocols/fp/report/buildReport';
import type { Report } from '../../core/protocols/fp/report/schema';
import { reportMarkdown } from '../../core/protocols/fp/report/markdown';
import { writeReportCharts } from '../../core/protocols/fp/findings/charts/reportCharts';
import { chartsMarkdown } from '../../core/protocols/fp/findings/charts/svg';

export const summary = 'pilot timing table, checks (§6), failures summary, final report (Markdown + JSON)';

const HELP = `usage: fpsweep report --package DIR [--full | --json]

Computes the report from the package's artifacts (data/logs, results, logs) and writes
.fpsweep/reports/report.md and report.json (and the findings charts, findings-*.svg, beside them). Prints a short
summary (the checks, failures, rows, how the last run ended) and the report's path; --full prints the whole Markdown
report, --json its JSON. Exit 1 when a check of SPEC §6 fails.

Given the root of another run type's run (an AVTime output root, …), prints that run type's report model as JSON
(its RunProtocol.report: what its report panel shows); it writes nothing.

Rerun: writes the report again from the artifacts as they are then, replacing .fpsweep/reports/.`;

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE' } },
  json: { type: 'boolean' },
  full: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = requirePackage(v, HELP);
  // What DIR is, before anything is written: a run package, another run type's root, or neither (exit 2).
  const found = await PROTOCOLS.recognising(packageDir);
  if (found.length === 0)
    throw new InputError(
      `--package ${packageDir} is not a run package (no items/samples/ folder nor results/conditions_results.csv) nor the root of another ` +
        `run type's run (${PROTOCOLS.all.map((p) => p.title).join(', ')}); nothing written`,
    );
  const other = found.length === 1 && found[0] !== fpProtocol ? found[0] : undefined;
  if (other) {
    process.stdout.write(JSON.stringify(await other.report(path.resolve(packageDir)), null, v.json ? 1 : 2) + '\n');
    return 0;
  }
  const report = await buildReport(packageDir);
  let md = reportMarkdown(report);
  // The findings charts as SVG files beside report.md (only those whose data changed are drawn again).
  if (report.findings) {
    const charts = await writeReportCharts(packageDir, report.findings).catch((err: Error) => {
      process.stderr.write(`findings charts not drawn: ${err.message}\n`);
      return null;
    });
    if (charts) md += `\n${chartsMarkdown(charts.files).join('\n')}`;
  }
  const written = await writeReport(packageDir, report, md);
  process.stdout.write(v.json ? JSON.stringify(report, null, 1) + '\n' : v.full ? md + '\n' : reportSummary(report, written.md));
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  process.stderr.write(
    `wrote ${written.md} and ${written.json}; ${report.checks.length - failed} of ${report.checks.length} checks not failing, ` +
      `${report.failures.total} failure(s), ${report.rowsAdded.total} row(s) added\n`,
  );
  return failed ? 1 : 0;
}
/** The terminal's summary: what a user reads before opening the report (its path), in a dozen lines. */
export function reportSummary(report: Report, mdFile: string): string {
  const failed = report.checks.filter((c) => c.status === 'fail');
  const lines = [`report: ${mdFile} (--full prints it here, --json its JSON)`];
  lines.push(`checks: ${report.checks.length - failed.length} of ${report.checks.length} not failing`);
  for (const c of failed.slice(0, 5)) lines.push(`  FAIL ${c.title}: ${c.detail}`);
  if (failed.length > 5) lines.push(`  … and ${failed.length - 5} more failing checks (in the report)`);
  lines.push(`rows added: ${report.rowsAdded.total}; failures: ${report.failures.total}; todo: ${report.extrapolation.todoTotal} items`);
  if (report.lastRun) lines.push(`last run ${report.lastRun.runId}: ${report.lastRun.state}${report.lastRun.summary ? ` (${report.lastRun.summary})` : ''}`);
  if (report.lastRun?.stopReason) lines.push(`  stopped on its own: ${report.lastRun.stopReason.detail}`);
  if (report.findings) {
    const verdicts = new Map<string, number>();
    for (const b of report.findings.benchmarks) verdicts.set(b.verdict, (verdicts.get(b.verdict) ?? 0) + 1);
    lines.push(`findings: ${[...verdicts].map(([k, n]) => `${n} ${k}`).join(', ')} (fpsweep findings --package … for the table)`);
  }
  return lines.join('\n') + '\n';
}
