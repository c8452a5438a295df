// Runs a runbook's `avtime …` step. CLI stages run `fpsweep avtime <stage>` on the configured bench root (and,
// for `run`, a fresh run id under the outputs folder); `run --detach` is then followed through the run's status
// file and artifacts until it has ended (interrupting the cell stops the following, not the worker); `status`
// prints the stages, shards and passes of the latest run (or --run-id), `report` opens its report panel.
// The run is followed with `fpsweep status --wait` (the CLI's staleness check), as FP's runbook follows its worker.
// No vscode import: the host gives what the step needs.
import * as path from 'node:path';
import { readAvtimeProgress, type AvtimeRunView } from '../../../core/protocols/avtime/progress';
import { runCliInCell, runCliStep, type RunbookSteps, type StepIo } from '../../runbook/steps';
import { avtimeRunbook } from './avtimeRunbook';
import { isDataStep } from './data/dataRunbook';
import { runDataStep, type DataStepHost } from './data/dataSteps';
import { formatAvtimeStatus } from './avtimeTreeData';
import { avtimeCliArgs, isPlainRunId, newRunId, type AvtimeFolders, type AvtimeSettings } from './avtimeSettingsModel';

export interface AvtimeStepHost {
  settings(): { settings: AvtimeSettings; folders: AvtimeFolders; cwd: string };
  /** The latest run the tree knows (a live one first). */
  latest(): AvtimeRunView | undefined;
  openReport(root: string): void;
  onRunStarted(): void;
  /** The Data runbook's steps (split, cut, caption, build-sft, build-grpo). */
  data: DataStepHost;
}

function runRoot(host: AvtimeStepHost, args: readonly string[]): string {
  const at = args.indexOf('--run-id');
  if (at >= 0) {
    const id = args[at + 1] ?? '';
    if (!isPlainRunId(id)) throw new Error(`run id '${id}' is not a plain name`);
    return path.join(host.settings().folders.outputsDir, id);
  }
  const latest = host.latest();
  if (!latest) throw new Error('no AVTime run yet: run the `fpsweep avtime run --detach` step first (or add --run-id ID)');
  return latest.outputRoot;
}

export async function runAvtimeStep(host: AvtimeStepHost, stepArgs: string[], io: StepIo): Promise<boolean> {
  const [stage, ...rest] = stepArgs;
  if (isDataStep(stage)) return runDataStep(host.data, stage, rest, io);
  io.write(`$ fpsweep avtime ${stepArgs.join(' ')}\n`, 'stdout');
  if (stage === 'status') {
    io.write(formatAvtimeStatus(await readAvtimeProgress(runRoot(host, rest))), 'stdout');
    return true;
  }
  if (stage === 'report') {
    const root = runRoot(host, rest);
    const v = await readAvtimeProgress(root);
    host.openReport(root);
    io.write(
      v.scores
        ? `Opened the report of ${v.runId}: ${Object.entries(v.scores)
            .map(([k, x]) => `${k} ${x.toFixed(4)}`)
            .join(' ')}\n`
        : `Opened the report of ${v.runId} (${v.state}: no scores yet).\n`,
      'stdout',
    );
    return true;
  }
  const { settings, folders, cwd } = host.settings();
  // A continuing stage (normalize, judge, score) works on the latest run unless the step names one.
  const idFor = () => (stage === 'run' ? newRunId() : path.basename(runRoot(host, rest)));
  const { args, outputRoot } = avtimeCliArgs(stepArgs, settings, folders, idFor);
  const env = await io.env(false);
  if (!(await runCliStep(io, 'avtime', args, env, cwd))) return false;
  if (stage !== 'run' || !rest.includes('--detach') || !outputRoot) return true;
  host.onRunStarted();
  io.write(`\nFollowing the run in ${outputRoot} (interrupting this cell stops following; the worker goes on)…\n`, 'stdout');
  return followRun(outputRoot, io, env, cwd);
}

/** Follows a detached run with `fpsweep status --wait` until it has ended; interrupting stops following only. */
async function followRun(root: string, io: StepIo, env: Record<string, string>, cwd: string): Promise<boolean> {
  const r = await runCliInCell(io, 'status', ['--wait', '--package', root], env, cwd);
  if (io.token.isCancellationRequested) {
    io.write('\nStopped following; the worker is still running (see the progress tree).\n', 'stdout');
    return false;
  }
  io.write(`\n${formatAvtimeStatus(await readAvtimeProgress(root))}`, 'stdout');
  return r.code === 0;
}

/** AVTime's runbook steps with their runner (the host gives settings, runs and the report panel). */
export function avtimeSteps(host: AvtimeStepHost): RunbookSteps {
  return { ...avtimeRunbook, run: (_verb, args, io) => runAvtimeStep(host, args, io) };
}
