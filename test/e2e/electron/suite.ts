// Runs inside VS Code's extension host (see runElectron.ts): the extension activates on a sample
// package, registers its commands, and its dry run fills the progress model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension('benchcheck.fpsweep');
  assert.ok(ext, 'the extension is installed in the development host');
  await ext.activate();
  const commands = await vscode.commands.getCommands(true);
  for (const id of ['fpsweep.startPilot', 'fpsweep.stop', 'fpsweep.openTimingReport', 'fpsweep.openRunbook', 'fpsweep.setHfToken']) {
    assert.ok(commands.includes(id), `${id} is registered`);
  }
  await vscode.commands.executeCommand('fpsweep.openRunbook');
  const nb = vscode.window.activeNotebookEditor?.notebook;
  assert.equal(nb?.notebookType, 'fpsweep-runbook');
  assert.ok(nb!.getCells().some((c) => c.document.getText().includes('fpsweep run --pilot --detach')));
}
