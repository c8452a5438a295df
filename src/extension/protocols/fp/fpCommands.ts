// Frames × Pixels' palette commands (category "fpsweep"). Each one runs a CLI verb or opens a view; none computes.
// Stop and Refresh are the extension's own, for every run type (extension.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PackageLayout } from '../../../core/protocols/fp/package/layout';
import { errorLine, lastLine, startCli, type CliResult } from '../../cli';
import type { ReportKind } from '../../reports/messages';
import type { UiCommand } from '../types';
import { openRunbookEditor } from '../../runbook/open';
import { HF_TOKEN_SECRET, knobEnv, readSettings, resolvePackageDir, runFlags, SettingsError, type Settings } from '../../settings';
import type { SweepModel } from './sweepModel';
import type { CellView } from '../../../core/protocols/fp/progress';
import type { TreeNode } from '../../progressNodes';

export const RUNBOOK_FILE = 'fpsweep.fpsweep-runbook';

export interface CommandHost {
  distDir: string;
  model: SweepModel;
  output: vscode.OutputChannel;
  secrets: vscode.SecretStorage;
  openReport(kind: ReportKind, focus?: { benchmark: string; condition: string }): void;
  /** A new runbook's text (every run type's cells). */
  newRunbook(): string;
  /** "Inspect an item…" (inspectCommand.ts): a tree cell's node, a target, or nothing (the palette). */
  inspectItem(arg: unknown): Promise<void>;
}

interface Ctx {
  settings: Settings;
  pkg: string;
}

export class FpCommands {
  readonly commands: UiCommand[];

  constructor(private readonly host: CommandHost) {
    const cmd = (id: string, run: (...args: never[]) => unknown): UiCommand => ({ id, run: run as UiCommand['run'] });
    // From the tree's context menu on a cell row (fpTreeRows.ts puts the cell in the row's data).
    const cellOf = (node?: TreeNode) => (node?.row.contextValue?.startsWith('cell') ? (node.row.data as CellView) : undefined);
    this.commands = [
      cmd('fpsweep.prepare', () => this.verb('prepare', 'Preparing data', [])),
      cmd('fpsweep.doctor', () => this.verb('doctor', 'Doctor', [])),
      cmd('fpsweep.dryRun', () => this.verb('dry-run', 'Dry run', [])),
      cmd('fpsweep.startPilot', () => this.start(true)),
      cmd('fpsweep.startFull', () => this.start(false)),
      cmd('fpsweep.attach', () => this.attach()),
      cmd('fpsweep.openTimingReport', () => this.host.openReport('timing')),
      cmd('fpsweep.openFailuresReport', () => this.host.openReport('failures')),
      cmd('fpsweep.openChecks', () => this.host.openReport('checks')),
      cmd('fpsweep.openFindings', () => this.host.openReport('findings')),
      cmd('fpsweep.returnResults', () => this.returnResults()),
      cmd('fpsweep.openRunbook', () => this.openRunbook()),
      cmd('fpsweep.setHfToken', () => this.setToken()),
      cmd('fpsweep.openRawJsonl', (node?: TreeNode) => this.openRaw(cellOf(node))),
      cmd('fpsweep.inspectItem', (arg?: unknown) => this.host.inspectItem(arg)),
      cmd('fpsweep.openCellFailures', (node?: TreeNode) => {
        const cell = cellOf(node);
        this.host.openReport('failures', cell ? { benchmark: cell.benchmark, condition: cell.condition } : undefined);
      }),
    ];
  }

  /** Settings and package, or a plain message saying what is missing. */
  private ctx(): Ctx {
    let settings: Settings;
    try {
      settings = readSettings();
    } catch (err) {
      if (err instanceof SettingsError) throw new Error(err.message);
      throw err;
    }
    const pkg = resolvePackageDir(settings);
    if (!pkg) throw new Error('no run package: open the package folder or set fpsweep.packagePath');
    return { settings, pkg };
  }

  private async run(c: Ctx, verb: string, args: string[], title: string, env: Record<string, string> = {}): Promise<CliResult> {
    const out = this.host.output;
    out.appendLine(`\n$ fpsweep ${verb} ${args.join(' ')} --package ${c.pkg}`);
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `fpsweep: ${title}`, cancellable: true },
      async (progress, token) => {
        const run = startCli({
          distDir: this.host.distDir,
          verb,
          args: [...args, '--package', c.pkg],
          env: { ...knobEnv(c.settings), ...env },
          cwd: c.pkg,
          onOutput: (t) => {
            out.append(t);
            const l = lastLine(t);
            if (l) progress.report({ message: l.slice(0, 120) });
          },
        });
        token.onCancellationRequested(() => run.interrupt());
        return run.done;
      },
    );
    return r;
  }

  private async verb(verb: string, title: string, args: string[]): Promise<void> {
    const c = this.ctx();
    const r = await this.run(c, verb, args, title);
    this.report(title, r);
    if (verb === 'prepare' || verb === 'dry-run') void this.host.model.refresh(true);
  }

  private report(title: string, r: CliResult): void {
    const line = r.code === 0 ? lastLine(r.stdout) || lastLine(r.stderr) : errorLine(r.stderr) || lastLine(r.stdout);
    if (r.code === 0)
      void vscode.window.showInformationMessage(`fpsweep: ${title}: ${line || 'done'}`, 'Show output').then((b) => b && this.host.output.show());
    else
      void vscode.window
        .showErrorMessage(`fpsweep: ${title} failed (exit ${r.code ?? r.signal}): ${line}`, 'Show output')
        .then((b) => b && this.host.output.show());
  }

  /** "Start pilot" does it all: the worker launches the servers and runs; the tree follows it. */
  private async start(pilot: boolean): Promise<void> {
    const c = this.ctx();
    if (!pilot) {
      const ok = await vscode.window.showWarningMessage(
        'Start the full run? It runs every benchmark × condition in the background worker (about a day on 4 GPUs).',
        { modal: true },
        'Start full run',
      );
      if (ok !== 'Start full run') return;
    }
    const args = ['--detach'];
    if (pilot) args.push('--pilot');
    if (c.settings.endpoints.length) args.push('--endpoints', c.settings.endpoints.join(','));
    args.push(...runFlags(c.settings, args));
    const title = pilot ? 'Start pilot' : 'Start full run';
    const r = await this.run(c, 'run', args, title);
    if (r.code !== 0) {
      this.report(title, r);
      return;
    }
    this.host.model.setPackage(c.pkg);
    await this.host.model.refresh(true);
    await vscode.commands.executeCommand('fpsweep.progress.focus');
    void vscode.window.showInformationMessage(`fpsweep: ${pilot ? 'pilot' : 'full run'} started in the background worker. ${lastLine(r.stdout)}`);
  }

  private async attach(): Promise<void> {
    const c = this.ctx();
    this.host.model.setPackage(c.pkg);
    await this.host.model.refresh(true);
    await vscode.commands.executeCommand('fpsweep.progress.focus');
    if (!this.host.model.isLive) void vscode.window.showInformationMessage(`fpsweep: no worker is running for ${c.pkg}; the tree shows the artifacts.`);
  }

  private async returnResults(): Promise<void> {
    const c = this.ctx();
    const token = await this.host.secrets.get(HF_TOKEN_SECRET);
    const picks: (vscode.QuickPickItem & { upload: boolean })[] = [
      { label: 'Make the tarball and sha256', description: 'files stay in the package root', upload: false },
      {
        label: 'Make and upload to the dataset repo',
        description: token ? 'uses the token in the secret store' : 'needs "fpsweep: Set Hugging Face token" first',
        upload: true,
      },
    ];
    const pick = await vscode.window.showQuickPick(picks, { title: 'fpsweep: Return results' });
    if (!pick) return;
    if (pick.upload && !token) {
      void vscode.window.showWarningMessage('fpsweep: no Hugging Face token stored. Run "fpsweep: Set Hugging Face token" first.');
      return;
    }
    // The token travels only in the child's environment: never in args, settings or logs.
    const r = await this.run(c, 'return', pick.upload ? ['--upload'] : [], 'Return results', pick.upload && token ? { HF_TOKEN: token } : {});
    if (r) this.report('Return results', r);
  }

  private async openRunbook(): Promise<void> {
    const c = this.ctx();
    const file = path.join(c.pkg, RUNBOOK_FILE);
    // A new package gets the seed's steps; an existing runbook is never overwritten.
    try {
      await fs.promises.writeFile(file, this.host.newRunbook(), { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    await openRunbookEditor(file);
  }

  private async setToken(): Promise<void> {
    const value = await vscode.window.showInputBox({
      title: 'fpsweep: Hugging Face token',
      prompt: 'Write token for uploading the returns. Stored in VS Code SecretStorage only. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return;
    if (value.trim() === '') {
      await this.host.secrets.delete(HF_TOKEN_SECRET);
      void vscode.window.showInformationMessage('fpsweep: Hugging Face token removed.');
    } else {
      await this.host.secrets.store(HF_TOKEN_SECRET, value.trim());
      void vscode.window.showInformationMessage('fpsweep: Hugging Face token stored in SecretStorage.');
    }
  }

  private async openRaw(cell: CellView | undefined): Promise<void> {
    if (!cell) return;
    const c = this.ctx();
    // PackageLayout checks that benchmark and condition are plain names before they become a path.
    const file = new PackageLayout(c.pkg).rawFile(cell.condition, cell.benchmark);
    if (!fs.existsSync(file)) {
      void vscode.window.showInformationMessage(`fpsweep: no raw records yet for ${cell.benchmark} × ${cell.condition}.`);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
  }
}
