// Opens a runbook file in its notebook editor the way the Explorer's "Open With…" does (vscode.openWith). Not
// workspace.openNotebookDocument + window.showNotebookDocument: when another editor opens in the group before the
// notebook editor is made (the e2e walkthrough check reopening the walkthrough right after), VS Code answers
// showNotebookDocument with "Notebook Editor creation failure for document …" (VS Code 1.100
// mainThreadNotebookEditors.ts $tryShowNotebookDocument: openEditor gave no pane) while the runbook's tab is there.
import * as vscode from 'vscode';
import { RUNBOOK_TYPE } from './serializer';

export async function openRunbookEditor(file: string): Promise<void> {
  await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), RUNBOOK_TYPE);
}
