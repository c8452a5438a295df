// "fpsweep: Start a run…" and "fpsweep: Open report…" for every run type: the extension's one Start and one Report,
// composed from what each run type's UI offers (its `starts`, its `openReport`). From a run row's menu they act on
// that run; from the palette the user picks among the run types (a single choice is taken at once).
import * as vscode from 'vscode';
import type { TreeNode } from './progressNodes';
import type { ComposedUi } from './protocols/compose';

export async function startRun(ui: ComposedUi, node?: TreeNode): Promise<void> {
  const root = node?.row.root;
  const owner = root && node ? ui.ownerOf(node.row) : undefined;
  const starts = ui.starts().filter((s) => !owner || s.ui === owner.ui);
  if (!starts.length) {
    void vscode.window.showInformationMessage('fpsweep: no run type can start a run here.');
    return;
  }
  const chosen =
    starts.length === 1
      ? starts[0]
      : (
          await vscode.window.showQuickPick(
            starts.map((s) => ({ label: `${s.ui.protocol.title}: ${s.start.label}`, detail: s.start.detail, s })),
            { title: 'fpsweep: Start a run' },
          )
        )?.s;
  if (chosen) await chosen.start.run(owner ? root : undefined);
}

export async function openReport(ui: ComposedUi, node?: TreeNode): Promise<void> {
  const root = node?.row.root;
  const owner = root && node ? ui.ownerOf(node.row) : undefined;
  if (owner) {
    if (owner.view.openReport) await owner.view.openReport(root);
    else void vscode.window.showInformationMessage(`fpsweep: ${owner.ui.protocol.title} runs have no report.`);
    return;
  }
  const reporters = ui.reporters();
  if (!reporters.length) {
    void vscode.window.showInformationMessage('fpsweep: no run type has a report.');
    return;
  }
  const chosen =
    reporters.length === 1
      ? reporters[0]
      : (
          await vscode.window.showQuickPick(
            reporters.map((r) => ({ label: r.ui.protocol.title, r })),
            { title: 'fpsweep: Open report' },
          )
        )?.r;
  if (chosen) await chosen.view.openReport!(undefined);
}
