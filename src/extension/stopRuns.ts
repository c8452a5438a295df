// "fpsweep: Stop" for every run type: the engine's stop (requestStop: the stop file, then SIGTERM to the lock
// holder) on each engine state (runRootsOf: every rank of a sharded run) of each live run the run types' UIs know; what the stop means is the run's policy
// (FP drains, AVTime fails closed). Several live runs: the user picks one, or all; a run row's Stop stops its run.
import * as vscode from 'vscode';
import { runRootsOf } from '../core/protocols/types';
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
    // Each engine state of the run (a sharded run's ranks on this file system), one line for them all.
    const pids: number[] = [];
    for (const runRoot of await runRootsOf(u.protocol, root)) {
      const r = await requestStop(runRoot);
      if (r.pid !== null) pids.push(r.pid);
    }
    const line = pids.length ? `stop requested of ${u.protocol.title} worker pid ${pids.join(', ')} (${root})` : `no worker holds ${root} any more`;
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
