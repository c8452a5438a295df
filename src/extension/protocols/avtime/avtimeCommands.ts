// The AVTime palette commands: "Start AVTime run" (the detached worker, through `fpsweep avtime run --detach`,
// as "Start full run" does for the sweep) and "Open AVTime report". Neither computes anything.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { errorLine, lastLine, startCli } from '../../cli';
import type { UiCommand } from '../types';
import { knobEnv, readSettings } from '../../settings';
import type { AvtimeModel } from './avtimeModel';
import { avtimeFolders, readAvtimeSettings, workspaceFolder } from './avtimeSettings';
import { avtimeCliArgs, isPlainRunId, newRunId } from './avtimeSettingsModel';
import type { TreeNode } from '../../progressNodes';

export interface AvtimeCommandHost {
  distDir: string;
  model: AvtimeModel;
  output: vscode.OutputChannel;
  openReport(runRoot: string): void;
}

export class AvtimeCommands {
  readonly commands: UiCommand[] = [
    { id: 'fpsweep.avtime.start', run: (opts?: unknown) => this.start((opts as { runId?: string } | undefined)?.runId) },
    { id: 'fpsweep.avtime.openReport', run: (node?: unknown) => this.openReport(node as TreeNode | undefined) },
  ];

  constructor(private readonly host: AvtimeCommandHost) {}

  private async start(givenId?: string): Promise<void> {
    const fp = readSettings();
    const s = readAvtimeSettings();
    const dirs = avtimeFolders(s);
    if (!fs.existsSync(dirs.benchRoot))
      throw new Error(`no bench root at ${dirs.benchRoot}: set fpsweep.avtime.benchRoot (or make a sample with the runbook's first AVTime step)`);
    const runId =
      givenId ??
      (await vscode.window.showInputBox({
        title: 'fpsweep: Start AVTime run',
        prompt: `Run id: the run goes to ${dirs.outputsDir}/<run id> (a run's artifacts are never overwritten)`,
        value: newRunId(),
        ignoreFocusOut: true,
        validateInput: (v) =>
          !isPlainRunId(v)
            ? 'letters, digits, ".", "_" and "-" only'
            : fs.existsSync(`${dirs.outputsDir}/${v}`)
              ? 'that run exists: choose a new id'
              : undefined,
      }));
    if (!runId) return;
    const { args } = avtimeCliArgs(['run', '--detach', '--run-id', runId], s, dirs, () => runId);
    const out = this.host.output;
    out.appendLine(`\n$ fpsweep avtime ${args.join(' ')}`);
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'fpsweep: Start AVTime run' },
      () =>
        startCli({
          distDir: this.host.distDir,
          verb: 'avtime',
          args,
          env: knobEnv(fp),
          cwd: workspaceFolder() ?? dirs.outputsDir,
          onOutput: (t) => out.append(t),
        }).done,
    );
    if (r.code !== 0) {
      void vscode.window
        .showErrorMessage(`fpsweep: Start AVTime run failed (exit ${r.code ?? r.signal}): ${errorLine(r.stderr) || lastLine(r.stdout)}`, 'Show output')
        .then((b) => b && out.show());
      return;
    }
    await this.host.model.refresh(true);
    await vscode.commands.executeCommand('fpsweep.progress.focus');
    void vscode.window.showInformationMessage(`fpsweep: AVTime run ${runId} started in the background worker. ${lastLine(r.stdout)}`);
  }

  private async openReport(node?: TreeNode): Promise<void> {
    // From the tree's context menu on a run row: that run.
    if (node?.row.contextValue?.startsWith('avtimeRun') && node.row.root) return this.host.openReport(node.row.root);
    await this.host.model.refresh();
    const runs = this.host.model.runs;
    if (!runs.length) {
      void vscode.window.showInformationMessage(
        'fpsweep: no AVTime run yet (outputs/avtime-bench/<RUN_ID>/ under the workspace, or fpsweep.avtime.outputRoot).',
      );
      return;
    }
    const latest = this.host.model.latest;
    if (runs.length === 1) return this.host.openReport(runs[0].outputRoot);
    const ordered = [...runs].sort((a, b) => (a === latest ? -1 : b === latest ? 1 : (b.startedAt ?? '').localeCompare(a.startedAt ?? '')));
    const pick = await vscode.window.showQuickPick(
      ordered.map((v) => ({ label: v.runId, description: `${v.state}${v.live ? ' (live)' : ''}`, detail: v.outputRoot, root: v.outputRoot })),
      { title: 'fpsweep: Open AVTime report' },
    );
    if (pick) this.host.openReport(pick.root);
  }
}
