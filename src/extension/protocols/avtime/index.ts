// The UI half of AVTime-Bench (issue 24 point 3): its runs under the outputs folders (AvtimeModel), its tree
// section, status bar item, report source, commands and runbook steps, as one ProtocolView.
import * as vscode from 'vscode';
import { PROTOCOLS } from '../../../core/protocols/registry';
import { Disposable } from '../../lifecycle';
import { RunStatusBar } from '../../statusBar';
import { avtimeStatusText } from '../../statusBarText';
import type { ProtocolUi, ProtocolView, RunStart, UiHost } from '../types';
import { AvtimeCommands } from './avtimeCommands';
import { AvtimeModel } from './avtimeModel';
import { avtimeFolders, avtimeRunFolders, readAvtimeSettings, workspaceFolder } from './avtimeSettings';
import { avtimeReportSource, HostAvtimeReportSource } from './avtimeSource';
import { avtimeSteps } from './avtimeSteps';
import { avtimeSection } from './avtimeTreeRows';
import { DataCommands } from './data/dataCommands';
import { DataReportSource } from './data/dataReportSource';

const protocol = PROTOCOLS.get('avtime')!;

class AvtimeView extends Disposable implements ProtocolView {
  private readonly model: AvtimeModel;
  readonly onDidChange: vscode.Event<void>;
  readonly commands;
  readonly reportSources;
  readonly runbook;
  readonly starts: readonly RunStart[];
  readonly openReport: (root: string | undefined) => unknown;

  constructor(host: UiHost) {
    super();
    this.model = this._register(new AvtimeModel(host.log));
    this.onDidChange = (listener, thisArg, disposables) => this.model.onDidChangeRuns(() => listener.call(thisArg), undefined, disposables);
    this._register(
      new RunStatusBar(
        { id: 'fpsweep.avtimeStatus', name: 'fpsweep AVTime run', priority: 49 },
        () => this.model.latest && avtimeStatusText(this.model.latest),
        this.onDidChange,
      ),
    );
    const reports = this._register(new HostAvtimeReportSource(this.model, { distDir: host.distDir, env: host.env }));
    const dataReports = this._register(new DataReportSource(() => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)));
    this.reportSources = { avtime: avtimeReportSource(reports), avtimeData: dataReports };
    const openReport = (root: string) => host.openReport('avtime', { run: root });
    // A step that wrote a report again: the panel already open for it fetches the new one.
    const openDataReport = (target: string) => {
      host.openReport('avtimeData', { run: target });
      dataReports.changed(target);
    };
    this.commands = [
      ...new AvtimeCommands({ distDir: host.distDir, model: this.model, output: host.output, openReport }).commands,
      ...new DataCommands({ openDataReport }).commands,
    ];
    const command = (id: string) => this.commands.find((c) => c.id === id)!;
    this.starts = [
      { label: 'Run', detail: 'target inference, normalize, judge and scores in the background worker', run: () => command('fpsweep.avtime.start').run() },
    ];
    // A run row's report is that run's; otherwise the run type's own pick (the latest first).
    this.openReport = (root) => (root ? openReport(root) : command('fpsweep.avtime.openReport').run());
    this.runbook = avtimeSteps({
      settings: () => {
        const s = readAvtimeSettings();
        const folders = avtimeFolders(s);
        return { settings: s, folders, cwd: workspaceFolder() ?? folders.outputsDir };
      },
      latest: () => this.model.latest,
      openReport,
      onRunStarted: () => void this.model.refresh(true),
      data: {
        cwd: () => {
          const folder = workspaceFolder();
          if (!folder) throw new Error('open a workspace folder first: the Data runbook runs its steps in it');
          return folder;
        },
        openDataReport,
        followRoot: host.followRoot,
      },
    });
    this.model.setFolders(avtimeRunFolders());
  }

  section() {
    return avtimeSection(this.model.runs, protocol);
  }

  liveRoots(): string[] {
    return this.model.runs.filter((r) => r.live).map((r) => r.outputRoot);
  }

  refresh(): Promise<void> {
    return this.model.refresh(true);
  }

  settingsChanged(e: vscode.ConfigurationChangeEvent | undefined): void {
    if (!e || e.affectsConfiguration('fpsweep.avtime')) this.model.setFolders(avtimeRunFolders());
  }
}

export const avtimeUi: ProtocolUi = { protocol, activate: (host) => new AvtimeView(host) };
