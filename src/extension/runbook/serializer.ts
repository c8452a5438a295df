// Bytes ⇄ cells for `*.fpsweep-runbook` (notebook-serializer-sample's shape). Outputs are not saved:
// the artifacts and logs are the record of what ran.
import * as vscode from 'vscode';
import { parseRunbook, stringifyRunbook, type Runbook, type RunbookSection } from './format';

export const RUNBOOK_TYPE = 'fpsweep-runbook';
export const STEP_LANGUAGE = 'fpsweep-step';

export class RunbookSerializer implements vscode.NotebookSerializer {
  /** `sections`: every run type's runbook part (an empty file opens as a new runbook). */
  constructor(private readonly sections: readonly RunbookSection[]) {}

  deserializeNotebook(content: Uint8Array): vscode.NotebookData {
    const book = parseRunbook(new TextDecoder().decode(content), 'runbook', this.sections);
    return new vscode.NotebookData(
      book.cells.map((c) =>
        c.kind === 'markdown'
          ? new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, c.value, 'markdown')
          : new vscode.NotebookCellData(vscode.NotebookCellKind.Code, c.value, STEP_LANGUAGE),
      ),
    );
  }

  serializeNotebook(data: vscode.NotebookData): Uint8Array {
    const book: Runbook = {
      fpsweepRunbook: 1,
      cells: data.cells.map((c) => ({
        kind: c.kind === vscode.NotebookCellKind.Markup ? ('markdown' as const) : ('step' as const),
        value: c.value,
      })),
    };
    return new TextEncoder().encode(stringifyRunbook(book));
  }
}
