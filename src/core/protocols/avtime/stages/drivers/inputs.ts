// Stage 1, target inputs: alone (`fpsweep avtime inputs`) it writes only next to the target inputs; in a run
// it writes the inputs the run built in memory (when they were absent), with a copy of the report in the root.
import * as path from 'node:path';
import { buildTargetInputs, writeTargetInputs } from '../inputs';
import { BenchRoot, targetInputsReportBeside } from '../layout';
import type { AvtimeOptions } from '../options';
import { readTargetInputs } from '../runInputs';
import { exists } from '../files';
import type { StageContext } from './context';

export interface InputsVerbResult {
  exitCode: 0;
  line: string;
  outputRoot: null;
  runId: null;
}

/** `fpsweep avtime inputs`: builds the target inputs when absent, else says they are there. */
export async function inputsVerb(opts: AvtimeOptions): Promise<InputsVerbResult> {
  const bench = new BenchRoot(opts.benchRoot);
  const targetInputsPath = path.resolve(opts.targetInputs ?? bench.targetInputs);
  const done = (line: string): InputsVerbResult => ({ exitCode: 0, line, outputRoot: null, runId: null });
  if (await exists(targetInputsPath)) {
    const rows = await readTargetInputs(targetInputsPath);
    return done(`target inputs already present: ${targetInputsPath} (${rows.length} rows, not rebuilt)`);
  }
  const built = await buildTargetInputs(bench.test, bench.inventory, targetInputsPath);
  await writeTargetInputs(built, targetInputsPath, [targetInputsReportBeside(targetInputsPath)]);
  const c = built.report.counts;
  return done(
    `target inputs built: ${c.target_inputs} rows from ${c.test_rows} test rows and ${c.inventory_rows} inventory rows, ` +
      `${c.assistant_messages_removed} assistant messages removed → ${targetInputsPath}`,
  );
}

export async function inputsStage(c: StageContext): Promise<void> {
  const st = c.status.stage('inputs');
  const { built } = c.run;
  if (!built) {
    st.state = 'skipped';
    return;
  }
  await writeTargetInputs(built, c.plan.targetInputsPath, [c.plan.targetInputsReport, c.plan.layout.targetInputsReport]);
  st.state = 'done';
  st.done = built.rows.length;
  c.say(`target inputs built: ${built.rows.length} rows → ${c.plan.targetInputsPath}`);
}
