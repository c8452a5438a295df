// "fpsweep: Stop" for every run type: the engine's stop (requestStop: the stop file, then SIGTERM to the lock
// holder) on the run root of each live run the run types' UIs know; what the stop means is the run's policy
// (FP drains, AVTime fails closed). Several live runs: the user picks one, or all; a run row's Stop stops its run.
import * as vscode from 'vscode';
import { requestStop } from '../core/runner/control';
import type { TreeNode } from './progressNodes';
import type { ComposedUi, LiveRun } from './protocols/compose';

export async function stopLiveRuns(ui: ComposedUi, output: vscode.OutputChannel, node?: TreeNode): Promise<void> {
  // From a run row's inline Stop: that run only.
  const live = ui.liveRuns().filter((r) => !node?.row.root || r.root === node.row.root);
  if (!live.length) {
    void vscode.window.showInformationMessage('fpsweep: no run has a live worker.');
    return;
  }
  const chosen = live.length === 1 ? live : await pick(live);
  if (!chosen?.length) return;
  for (const { ui: u, root } of chosen) {
    const r = await requestStop(u.protocol.runRoot(root));
    const line = r.pid === null ? `no worker holds ${root} any more` : `stop requested of ${u.protocol.title} worker pid ${r.pid} (${root})`;
    output.appendLine(`fpsweep: Stop: ${line}`);
    void vscode.window.showInformationMessage(`fpsweep: Stop: ${line}`);
  }
  await Promise.all(ui.views.map((v) => v.view.refresh()));
}

async function pick(live: LiveRun[]): Promise<LiveRun[] | undefined> {
  const items = [
    { label: 'Stop every run', runs: live },
    ...live.map((r) => ({ label: `${r.ui.protocol.title}: ${r.root.split(/[\\/]/).pop()}`, detail: r.root, runs: [r] })),
  ];
  return (await vscode.window.showQuickPick(items, { title: 'fpsweep: Stop' }))?.runs;
}
