// "fpsweep: Open in system player" (issue 36 point 2): a clip (or any media file) opened with the OS's own player,
// which plays the formats VS Code's webviews cannot (AAC on desktop). On the user's machine: env.openExternal on the
// file URI (the OS's default application). Remote or in a browser: systemPlayerRoute.ts says why not, and offers the
// Explorer's reveal (then Download…) or the path.
import * as vscode from 'vscode';
import { systemPlayerRoute } from './systemPlayerRoute';

export async function openInSystemPlayer(uri: unknown): Promise<void> {
  if (!(uri instanceof vscode.Uri) || uri.scheme !== 'file') {
    void vscode.window.showErrorMessage('fpsweep: Open in system player needs a media file (from the caption viewer, or the Explorer).');
    return;
  }
  const route = systemPlayerRoute({ remoteName: vscode.env.remoteName, web: vscode.env.uiKind === vscode.UIKind.Web }, uri.fsPath);
  if (route.open) {
    if (!(await vscode.env.openExternal(uri))) void vscode.window.showWarningMessage(`fpsweep: the system could not open ${uri.fsPath}.`);
    return;
  }
  const reveal = 'Reveal in Explorer';
  const copy = 'Copy path';
  const picked = await vscode.window.showInformationMessage(route.why, reveal, copy);
  if (picked === reveal) await vscode.commands.executeCommand('revealInExplorer', uri);
  else if (picked === copy) await vscode.env.clipboard.writeText(uri.fsPath);
}
