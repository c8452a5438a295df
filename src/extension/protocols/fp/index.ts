// The UI half of Frames × Pixels (issue 24 point 3): the package the extension follows (SweepModel), its tree
// section, status bar item, report and findings sources, commands and runbook steps, as one ProtocolView.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROTOCOLS } from '../../../core/protocols/registry';
import { formatEta, percent } from '../../../core/protocols/fp/progress';
import { Disposable } from '../../lifecycle';
import { readSettings, resolvePackageDir, runFlags } from '../../settings';
import { RunStatusBar } from '../../statusBar';
import { sweepStatusText } from '../../statusBarText';
import type { ProtocolUi, ProtocolView, RunStart, UiHost } from '../types';
import { CliFindingsSource } from './findingsSource';
import { FpCommands } from './fpCommands';
import { fpSteps } from './fpSteps';
import { inspectItemCommand } from './inspectCommand';
import { ITEM_INSPECTOR_VIEW_TYPE, ItemInspectorPanel, type InspectorHost } from './inspectorPanel';
import { fpSection } from './fpTreeRows';
import { CliReportSource, fpReportSource } from './reportSource';
import { SweepModel } from './sweepModel';

const protocol = PROTOCOLS.get('fp')!;

class FpView extends Disposable implements ProtocolView {
  private readonly model: SweepModel;
  readonly onDidChange: vscode.Event<void>;
  readonly commands;
  readonly reportSources;
  readonly runbook;
  readonly starts: readonly RunStart[];

  constructor(private readonly host: UiHost) {
    super();
    this.model = this._register(new SweepModel({ distDir: host.distDir, env: host.env, log: host.log }));
    this.onDidChange = this.model.onDidChangeData;
    this._register(
      new RunStatusBar(
        { id: 'fpsweep.status', name: 'fpsweep progress', priority: 50 },
        () => this.model.current && sweepStatusText(this.model.current),
        this.onDidChange,
      ),
    );
    this._register(this.model.onDidChangeData(tellRunEnd(this.model)));
    const reports = this._register(
      new CliReportSource({ distDir: host.distDir, packageDir: () => this.packageDir(), env: host.env, onDidChangeProgress: this.onDidChange }),
    );
    const inspect = (t: { benchmark: string; itemId: string; conditions: string[] }) => this.inspect(t);
    this.reportSources = {
      fp: fpReportSource(reports, inspect),
      fpFindings: this._register(new CliFindingsSource({ distDir: host.distDir, env: host.env, fp: reports, inspect })),
    };
    this.commands = new FpCommands({
      distDir: host.distDir,
      model: this.model,
      output: host.output,
      secrets: host.secrets,
      openReport: (kind, focus) => host.openReport(kind, { focus }),
      newRunbook: host.newRunbook,
      inspectItem: (arg) => inspectItemCommand({ model: this.model, inspect }, arg),
    }).commands;
    this.runbook = fpSteps(
      () => void this.model.refresh(true),
      (given) => runFlags(readSettings(), given),
    );
    const command = (id: string) => this.commands.find((c) => c.id === id)!;
    this.starts = [
      { label: 'Pilot', detail: 'MVBench, LVBench, TimeScope at every condition: the timing report', run: () => command('fpsweep.startPilot').run() },
      { label: 'Full run', detail: 'every benchmark and condition; skips what the pilot did', run: () => command('fpsweep.startFull').run() },
    ];
    // After a window reload VS Code brings the inspector back on the item its webview kept (package.json:
    // onWebviewPanel:fpsweep.itemInspector), in the package followed now.
    this._register(
      vscode.window.registerWebviewPanelSerializer(ITEM_INSPECTOR_VIEW_TYPE, {
        deserializeWebviewPanel: (panel, state) => ItemInspectorPanel.revive(panel, this.inspectorHost(), state, this.packageDir()),
      }),
    );
    // Remote-SSH: the worker outlives the window. Following the package at once re-attaches to a live
    // worker (its status file) or shows the artifacts.
    this.model.setPackage(this.packageDir());
  }

  /** The item inspector on one item of the package followed (a flip's, a failure row's, a tree cell's pick). */
  private async inspect(t: { benchmark: string; itemId: string; conditions: string[] }): Promise<void> {
    const packageDir = this.packageDir();
    if (!packageDir) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
    await ItemInspectorPanel.show(this.inspectorHost(), { packageDir, ...t });
  }

  private inspectorHost(): InspectorHost {
    // dist/ is the extension's: its parent is the extension's folder, whose dist/media holds the inspector's bundle.
    return { extensionUri: vscode.Uri.file(path.dirname(this.host.distDir)), distDir: this.host.distDir, env: this.host.env, log: this.host.log };
  }

  private packagePathSet(): boolean {
    try {
      return readSettings().packagePath.trim() !== '';
    } catch {
      return false;
    }
  }

  private packageDir(): string | undefined {
    try {
      return resolvePackageDir(readSettings());
    } catch (err) {
      this.host.log(`fpsweep: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** The package's timing report: the sweep's report (its failures, checks and findings are its other kinds). */
  openReport(): void {
    this.host.openReport('timing');
  }

  section() {
    // A workspace that is no package (a caption videos root, an AVTime outputs folder) shows no Frames × Pixels
    // group, unless fpsweep.packagePath points at it: then the group says what is wrong.
    if (this.model.notPackage && !this.packagePathSet()) return { protocol, runs: 0, rows: [] };
    return fpSection({ message: this.model.message, view: this.model.current }, protocol);
  }

  liveRoots(): string[] {
    return this.model.isLive && this.model.packageDir ? [this.model.packageDir] : [];
  }

  refresh(): Promise<void> {
    return this.model.refresh(true);
  }

  settingsChanged(e: vscode.ConfigurationChangeEvent | undefined): void {
    if (!e || e.affectsConfiguration('fpsweep')) this.model.setPackage(this.packageDir());
  }

  viewDescription(): string | undefined {
    const v = this.model.current;
    return v
      ? `${percent(v.finished, v.total)}%${v.live && v.etaSeconds !== null ? ` · ETA ${formatEta(v.etaSeconds)}` : ''}${v.live ? '' : ' · idle'}`
      : undefined;
  }
}

/** Says once per run how it ended: a worker that fails right after "Start pilot" must not go unnoticed. */
function tellRunEnd(model: SweepModel): () => void {
  let toldRun: string | null = null;
  let sawLive: string | null = null;
  const activatedAt = Date.now();
  return () => {
    const v = model.current;
    if (!v?.runId) return;
    if (v.live) sawLive = v.runId;
    const startedHere = v.startedAt !== null && Date.parse(v.startedAt) >= activatedAt;
    if (v.live || toldRun === v.runId || (sawLive !== v.runId && !startedHere)) return;
    toldRun = v.runId;
    const text = v.summary ?? v.message ?? `the worker ended (${v.state})`;
    if (v.state === 'failed')
      void vscode.window
        .showErrorMessage(`fpsweep: the ${v.mode ?? ''} run failed: ${text}`, 'Show runner log')
        .then((b) => b && void vscode.window.showTextDocument(vscode.Uri.file(path.join(model.packageDir!, 'logs', 'runner.log'))));
    else void vscode.window.showInformationMessage(`fpsweep: the ${v.mode ?? ''} run ended (${v.state}): ${text}`);
  };
}

export const fpUi: ProtocolUi = { protocol, activate: (host) => new FpView(host) };
