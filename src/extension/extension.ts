// Entry point: builds the managers, each one a Disposable pushed into context.subscriptions.
// The extension runs where the package is (extensionKind workspace: the Remote-SSH host), talks to the
// background worker through its status file and the CLI, and never computes results itself.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Commands, HF_TOKEN_SECRET } from './commands';
import { ProgressTreeProvider } from './progressTree';
import { treeRoots, type ProtocolSection } from './progressNodes';
import { fpSection } from './fpTreeRows';
import { avtimeSection } from './avtime/avtimeTreeRows';
import { PolledRuns } from './protocolRuns';
import { PROTOCOLS } from '../core/protocols/registry';
import { avtimeReportSource, fpReportSource, ReportPanel, ReportPanelSerializer, REPORT_VIEW_TYPE, type ReportSources } from './reports/reportPanel';
import { CliReportSource } from './reports/reportSource';
import { CliFindingsSource } from './reports/findingsSource';
import { RunbookController } from './runbook/controller';
import { RUNBOOK_TYPE, RunbookSerializer } from './runbook/serializer';
import { knobEnv, readSettings, resolvePackageDir, type Settings } from './settings';
import { AvtimeStatusBar, SweepStatusBar } from './statusBar';
import { SweepModel } from './sweepModel';
import { formatEta, percent } from './progressData';
import { AvtimeModel } from './avtime/avtimeModel';
import { AvtimeCommands } from './avtime/avtimeCommands';
import { avtimeFolders, avtimeRunFolders, readAvtimeSettings, workspaceFolder } from './avtime/avtimeSettings';
import { HostAvtimeReportSource } from './reports/avtimeSource';

export function activate(context: vscode.ExtensionContext): void {
  const distDir = path.join(context.extensionPath, 'dist');
  const output = vscode.window.createOutputChannel('fpsweep');
  context.subscriptions.push(output);

  const settings = (): Settings | undefined => {
    try {
      return readSettings();
    } catch (err) {
      output.appendLine(`fpsweep: ${(err as Error).message}`);
      return undefined;
    }
  };
  const packageDir = () => {
    const s = settings();
    return s ? resolvePackageDir(s) : undefined;
  };
  const env = () => {
    const s = settings();
    return s ? knobEnv(s) : {};
  };

  const model = new SweepModel({ distDir, env, log: (l) => output.appendLine(l) });
  context.subscriptions.push(model);

  const avtime = new AvtimeModel((l) => output.appendLine(l));
  context.subscriptions.push(avtime);

  // The tree: one group per run type of the registry. FP and AVTime have their own rows (and models); any other
  // protocol is polled and shown with the generic rows of its snapshots.
  const fp = PROTOCOLS.get('fp')!;
  const av = PROTOCOLS.get('avtime')!;
  const sections: Record<string, () => ProtocolSection> = {
    [fp.id]: () => fpSection({ message: model.message, view: model.current }, fp),
    [av.id]: () => avtimeSection(avtime.runs, av),
  };
  const polled = new Map(PROTOCOLS.all.filter((p) => !sections[p.id]).map((p) => [p.id, new PolledRuns(p, (l) => output.appendLine(l))]));
  polled.forEach((p) => context.subscriptions.push(p));
  const tree = new ProgressTreeProvider(() =>
    treeRoots(
      PROTOCOLS,
      (p) => sections[p.id]?.(),
      (p) => polled.get(p.id)?.snapshots ?? [],
    ),
  );
  context.subscriptions.push(
    model.onDidChangeData(() => tree.changed()),
    avtime.onDidChangeRuns(() => tree.changed()),
  );
  polled.forEach((p) => context.subscriptions.push(p.onDidChange(() => tree.changed())));
  const view = vscode.window.createTreeView('fpsweep.progress', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(tree, view);
  const describeView = () => {
    const v = model.current;
    view.description = v
      ? `${percent(v.finished, v.total)}%${v.live && v.etaSeconds !== null ? ` · ETA ${formatEta(v.etaSeconds)}` : ''}${v.live ? '' : ' · idle'}`
      : undefined;
  };
  context.subscriptions.push(model.onDidChangeData(describeView));
  // Say once per run how it ended: a worker that fails right after "Start pilot" must not go unnoticed.
  let toldRun: string | null = null;
  let sawLive: string | null = null;
  const activatedAt = Date.now();
  context.subscriptions.push(
    model.onDidChangeData(() => {
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
    }),
  );

  context.subscriptions.push(new SweepStatusBar(model), new AvtimeStatusBar(avtime));

  const fpReports = new CliReportSource({ distDir, packageDir, env, onDidChangeProgress: model.onDidChangeData });
  const avtimeReports = new HostAvtimeReportSource(avtime);
  context.subscriptions.push(fpReports, avtimeReports);
  const reports: ReportSources = {
    fp: fpReportSource(fpReports),
    fpFindings: new CliFindingsSource({ distDir, env, fp: fpReports }),
    avtime: avtimeReportSource(avtimeReports),
  };
  context.subscriptions.push(vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, new ReportPanelSerializer(context.extensionUri, reports)));
  const openAvtimeReport = (root: string) => void ReportPanel.show(context.extensionUri, reports, 'avtime', undefined, root);
  context.subscriptions.push(new AvtimeCommands({ distDir, model: avtime, output, openReport: openAvtimeReport }));

  context.subscriptions.push(
    new Commands({
      distDir,
      model,
      output,
      secrets: context.secrets,
      openReport: (kind, focus) => ReportPanel.show(context.extensionUri, reports, kind, focus),
    }),
  );

  context.subscriptions.push(vscode.workspace.registerNotebookSerializer(RUNBOOK_TYPE, new RunbookSerializer(), { transientOutputs: true }));
  context.subscriptions.push(
    new RunbookController({
      distDir,
      env: async (withToken) => {
        const base = env();
        const token = withToken ? await context.secrets.get(HF_TOKEN_SECRET) : undefined;
        return token ? { ...base, HF_TOKEN: token } : base;
      },
      packageFor: (nb) => {
        const configured = packageDir();
        const own = path.dirname(nb.uri.fsPath);
        if (configured && !path.relative(configured, own).startsWith('..')) return configured;
        return own;
      },
      onWorkerStarted: () => void model.refresh(true),
      avtime: {
        settings: () => {
          const s = readAvtimeSettings();
          const folders = avtimeFolders(s);
          return { settings: s, folders, cwd: workspaceFolder() ?? folders.outputsDir };
        },
        latest: () => avtime.latest,
        openReport: openAvtimeReport,
        onRunStarted: () => void avtime.refresh(true),
      },
    }),
  );

  // Remote-SSH: the worker outlives the window. Following the package at once re-attaches to a live
  // worker (its status file) or shows the artifacts.
  model.setPackage(packageDir());
  avtime.setFolders(avtimeRunFolders());
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('fpsweep')) model.setPackage(packageDir());
      if (e.affectsConfiguration('fpsweep.avtime')) avtime.setFolders(avtimeRunFolders());
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      model.setPackage(packageDir());
      avtime.setFolders(avtimeRunFolders());
    }),
  );
}

export function deactivate(): void {
  // Everything is in context.subscriptions. The worker is left running on purpose.
}
