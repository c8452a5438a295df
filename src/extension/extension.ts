// Entry point: composes every view from the run types' UIs (protocols/registry.ts) in named steps, each
// Disposable pushed into context.subscriptions. The extension runs where the package is (extensionKind
// workspace: the Remote-SSH host), talks to the background workers through their files and the CLI, and never
// computes results itself.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerGuardedCommand } from './lifecycle';
import type { TreeNode } from './progressNodes';
import { ProgressTreeProvider } from './progressTree';
import { ComposedUi } from './protocols/compose';
import { PROTOCOL_UIS } from './protocols/registry';
import type { UiHost } from './protocols/types';
import { ReportPanel, ReportPanelSerializer, REPORT_VIEW_TYPE, type ReportSources } from './reports/reportPanel';
import { RunbookController } from './runbook/controller';
import { defaultRunbook, stringifyRunbook } from './runbook/format';
import { RUNBOOK_TYPE, RunbookSerializer } from './runbook/serializer';
import { effectiveSettingsText, SETTINGS_SCHEME } from './effectiveSettings';
import { HF_TOKEN_SECRET, knobEnv, readSettings, resolvePackageDir } from './settings';
import { stopLiveRuns } from './stopRuns';
import { openReport, startRun } from './runCommands';
import { redactingOutputChannel, registeringSecretStorage } from './redaction';
import { registerEnvSecrets } from '../core/security/secrets';

export function activate(context: vscode.ExtensionContext): void {
  registerEnvSecrets(); // the extension host's own environment (HF_TOKEN, API keys), masked in the channel
  const output = redactingOutputChannel(vscode.window.createOutputChannel('fpsweep'));
  context.subscriptions.push(output);
  let sources: ReportSources = {};
  let ui: ComposedUi | undefined;
  const host = uiHost(
    context,
    output,
    () => sources,
    () => ui?.runbookSteps() ?? [],
    (root) => ui?.follow(root) ?? Promise.resolve(),
  );
  ui = new ComposedUi(PROTOCOL_UIS, host);
  ui.views.forEach((v) => context.subscriptions.push(v.view));
  sources = ui.reportSources();
  registerTree(context, ui);
  registerContextKeys(context, ui);
  registerCommands(context, ui, output);
  registerReports(context, sources);
  registerRunbook(context, ui, host);
  followSettings(context, ui);
}

/** What every run type's UI gets: the CLI bundle, the output channel, the settings' environment, the panels. */
function uiHost(
  context: vscode.ExtensionContext,
  output: vscode.OutputChannel,
  sources: () => ReportSources,
  steps: () => ReturnType<ComposedUi['runbookSteps']>,
  followRoot: (root: string) => Promise<void>,
): UiHost {
  return {
    distDir: path.join(context.extensionPath, 'dist'),
    output,
    secrets: registeringSecretStorage(context.secrets),
    log: (line) => output.appendLine(line),
    env: () => {
      try {
        return knobEnv(readSettings());
      } catch (err) {
        output.appendLine(`fpsweep: ${(err as Error).message}`);
        return {};
      }
    },
    openReport: (kind, opts) => void ReportPanel.show(context.extensionUri, sources(), kind, opts?.focus, opts?.run),
    newRunbook: () => stringifyRunbook(defaultRunbook(steps())),
    followRoot,
  };
}

/** The "Progress" tree: one group per run type; the view's description is the first run type's that has one. */
function registerTree(context: vscode.ExtensionContext, ui: ComposedUi): void {
  const tree = new ProgressTreeProvider(() => ui.treeRows());
  const view = vscode.window.createTreeView('fpsweep.progress', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(tree, view);
  const changed = () => {
    tree.changed();
    view.description = ui.viewDescription();
  };
  ui.views.forEach((v) => context.subscriptions.push(v.view.onDidChange(changed)));
  changed();
}

/** `fpsweep.running.<id>` (and `fpsweep.running`) while a run of that type has a live worker: Stop shows only then. */
function registerContextKeys(context: vscode.ExtensionContext, ui: ComposedUi): void {
  const said = new Map<string, boolean>();
  const update = () => {
    for (const [key, on] of ui.contextKeys()) {
      if (said.get(key) === on) continue;
      said.set(key, on);
      void vscode.commands.executeCommand('setContext', key, on);
    }
  };
  ui.views.forEach((v) => context.subscriptions.push(v.view.onDidChange(update)));
  update();
}

/** Every run type's commands, and the extension's own: Start, Stop, Report and Refresh (any run type), the effective settings. */
function registerCommands(context: vscode.ExtensionContext, ui: ComposedUi, output: vscode.OutputChannel): void {
  for (const c of ui.commands()) context.subscriptions.push(registerGuardedCommand(c.id, (...args: unknown[]) => c.run(...args)));
  context.subscriptions.push(
    registerGuardedCommand('fpsweep.start', (node?: unknown) => startRun(ui, node as TreeNode | undefined)),
    registerGuardedCommand('fpsweep.stop', (node?: unknown) => stopLiveRuns(ui, output, node as TreeNode | undefined)),
    registerGuardedCommand('fpsweep.openReport', (node?: unknown) => openReport(ui, node as TreeNode | undefined)),
    registerGuardedCommand('fpsweep.refresh', () => Promise.all(ui.views.map((v) => v.view.refresh()))),
    vscode.workspace.registerTextDocumentContentProvider(SETTINGS_SCHEME, {
      provideTextDocumentContent: () => effectiveSettingsText(settingKeys(context), new Date()),
    }),
    registerGuardedCommand('fpsweep.showSettings', async () => {
      // A fresh query each time: the provider is asked again, so the text is the configuration now.
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(`${SETTINGS_SCHEME}:/fpsweep-settings.json?${Date.now()}`));
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
}

function registerReports(context: vscode.ExtensionContext, sources: ReportSources): void {
  context.subscriptions.push(vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, new ReportPanelSerializer(context.extensionUri, sources)));
}

function registerRunbook(context: vscode.ExtensionContext, ui: ComposedUi, host: UiHost): void {
  context.subscriptions.push(vscode.workspace.registerNotebookSerializer(RUNBOOK_TYPE, new RunbookSerializer(ui.runbookSteps()), { transientOutputs: true }));
  context.subscriptions.push(
    new RunbookController({
      distDir: host.distDir,
      env: async (withToken) => {
        const base = host.env();
        const token = withToken ? await host.secrets.get(HF_TOKEN_SECRET) : undefined;
        return token ? { ...base, HF_TOKEN: token } : base;
      },
      packageFor: (nb) => {
        let configured: string | undefined;
        try {
          configured = resolvePackageDir(readSettings());
        } catch {
          configured = undefined;
        }
        const own = path.dirname(nb.uri.fsPath);
        if (configured && !path.relative(configured, own).startsWith('..')) return configured;
        return own;
      },
      steps: ui.runbookSteps(),
    }),
  );
}

/** A changed setting or workspace folder: each run type re-reads what it follows. */
function followSettings(context: vscode.ExtensionContext, ui: ComposedUi): void {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => ui.views.forEach((v) => v.view.settingsChanged?.(e))),
    vscode.workspace.onDidChangeWorkspaceFolders(() => ui.views.forEach((v) => v.view.settingsChanged?.(undefined))),
  );
}

/** The setting keys the manifest contributes. */
function settingKeys(context: vscode.ExtensionContext): string[] {
  const pkg = context.extension.packageJSON as { contributes?: { configuration?: { properties?: Record<string, unknown> } } };
  return Object.keys(pkg.contributes?.configuration?.properties ?? {});
}

export function deactivate(): void {
  // Everything is in context.subscriptions. The workers are left running on purpose.
}
