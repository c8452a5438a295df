// Runs a runbook's `avtime …` step. CLI stages run `fpsweep avtime <stage>` on the configured bench root (and,
// for `run`, a fresh run id under the outputs folder); `run --detach` is then followed through the run's status
// file and artifacts until it has ended (interrupting the cell stops the following, not the worker); `status`
// prints the stages, shards and passes of the latest run (or --run-id), `report` opens its report panel.
// No vscode import: the host gives what the step needs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAvtimeProgress, viewKey, type AvtimeRunView } from '../../core/protocols/avtime/progress';
import { AvtimeOutputRoot } from '../../core/protocols/avtime/stages/layout';
import { startCli } from '../cli';
import { formatAvtimeStatus, stageText } from './avtimeTreeData';
import { avtimeCliArgs, isPlainRunId, newRunId, type AvtimeFolders, type AvtimeSettings } from './avtimeSettingsModel';

export interface AvtimeStepHost {
  settings(): { settings: AvtimeSettings; folders: AvtimeFolders; cwd: string };
  /** The latest run the tree knows (a live one first). */
  latest(): AvtimeRunView | undefined;
  openReport(root: string): void;
  onRunStarted(): void;
}

export interface StepIo {
  distDir: string;
  env: Record<string, string>;
  token: { isCancellationRequested: boolean; onCancellationRequested(fn: () => void): { dispose(): void } };
  write(text: string, stream: 'stdout' | 'stderr'): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  const run = startCli({ distDir: io.distDir, verb: 'avtime', args, env: io.env, cwd, onOutput: (t, s) => io.write(t, s) });
  const sub = io.token.onCancellationRequested(() => run.interrupt());
  let r;
  try {
    r = await run.done;
  } finally {
    sub.dispose();
  }
  if (r.code !== 0) {
    if (!io.token.isCancellationRequested) io.write(`\n(exit ${r.code ?? r.signal})\n`, 'stderr');
    return false;
  }
  if (stage !== 'run' || !rest.includes('--detach') || !outputRoot) return true;
  host.onRunStarted();
  io.write(`\nFollowing the run in ${outputRoot} (interrupting this cell stops following; the worker goes on)…\n`, 'stdout');
  return followRun(outputRoot, io);
}

/** Follows a detached run until it has ended: prints a line whenever a stage moves, the status at the end. */
async function followRun(root: string, io: StepIo, pollMs = 1000): Promise<boolean> {
  const { statusFile, runnerLog } = new AvtimeOutputRoot(root);
  let last = '';
  const started = Date.now();
  for (;;) {
    if (io.token.isCancellationRequested) {
      io.write('\nStopped following; the worker is still running (see the progress tree).\n', 'stdout');
      return false;
    }
    const v = await readAvtimeProgress(root);
    const key = viewKey(v);
    if (key !== last) {
      last = key;
      io.write(`${new Date().toISOString().slice(11, 19)} ${v.stages.map((s) => `${s.name} ${stageText(v.runId, s).description}`).join(' | ')}\n`, 'stdout');
    }
    // Ended: no live worker and a status file that says so (a run that has not written one yet is still starting).
    if (!v.live && fs.existsSync(statusFile)) {
      io.write(`\n${formatAvtimeStatus(v)}`, 'stdout');
      return v.state === 'done';
    }
    if (!v.live && Date.now() - started > 60_000) {
      io.write(`\nNo status file in ${root} after a minute and no live worker: see ${runnerLog}\n`, 'stderr');
      return false;
    }
    await sleep(pollMs);
  }
}
