// Runs a Data runbook step (`fpsweep avtime split|cut|caption|build-sft|build-grpo …`): the CLI with the step's
// words as written, in the workspace folder (where the runbook's relative paths point), its output streamed into the
// cell; once a step with a report succeeded, its report opens in the data report panel, and once a step that made a
// run root succeeded (cut, caption), the progress tree follows that root. No vscode import.
import { runCliStep, type StepIo } from '../../../runbook/steps';
import { dataReportTarget, dataRunRoot, type DataStep } from './dataRunbook';

export interface DataStepHost {
  /** The folder the steps run in (the first workspace folder). */
  cwd(): string;
  /** Opens (or refreshes) the data report panel of a report file or split folder. */
  openDataReport(target: string): void;
  /** The progress tree follows a run root a step made (the run type that recognises it shows it). */
  followRoot(root: string): Promise<void>;
}

export async function runDataStep(host: DataStepHost, stage: DataStep, rest: string[], io: StepIo): Promise<boolean> {
  const args = [stage, ...rest];
  const cwd = host.cwd();
  io.write(`$ fpsweep avtime ${args.join(' ')}\n`, 'stdout');
  if (!(await runCliStep(io, 'avtime', args, await io.env(false), cwd))) return false;
  const made = dataRunRoot(stage, rest, cwd);
  if (made) await host.followRoot(made);
  const target = dataReportTarget(stage, rest, cwd);
  if (target) {
    host.openDataReport(target);
    io.write(`Opened the report of ${target}.\n`, 'stdout');
  }
  return true;
}
