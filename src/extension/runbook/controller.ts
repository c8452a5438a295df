// Runs a runbook cell: the step's verb says which run type answers it (each one's RunbookSteps, from
// PROTOCOL_UIS); what the step writes is streamed into the cell. Interrupting a cell is the step's to handle
// (FP: stop the worker it follows; AVTime: stop following).
import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import { parseStep } from './format';
import { RUNBOOK_TYPE, STEP_LANGUAGE } from './serializer';
import type { RunbookSteps } from './steps';

export interface RunbookHost {
  distDir: string;
  /** Knob environment for a step; `withToken` adds HF_TOKEN from SecretStorage for `return --upload`. */
  env(withToken: boolean): Promise<Record<string, string>>;
  /** The package of a runbook: the configured package if the runbook is inside it, else the runbook's folder. */
  packageFor(notebook: vscode.NotebookDocument): string | undefined;
  /** Every run type's steps, in the registry's order. */
  steps: readonly RunbookSteps[];
}

/** Batches output so a chatty step re-renders the cell a few times a second, not per chunk. */
class OutputStream {
  private pending: { text: string; stream: 'stdout' | 'stderr' }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Thenable<void> = Promise.resolve();
  constructor(
    private readonly exec: vscode.NotebookCellExecution,
    private readonly output: vscode.NotebookCellOutput,
  ) {}

  write(text: string, stream: 'stdout' | 'stderr'): void {
    const last = this.pending[this.pending.length - 1];
    if (last && last.stream === stream) last.text += text;
    else this.pending.push({ text, stream });
    this.timer ??= setTimeout(() => this.flush(), 150);
  }

  flush(): Thenable<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.pending.map((p) =>
      p.stream === 'stdout' ? vscode.NotebookCellOutputItem.stdout(p.text) : vscode.NotebookCellOutputItem.stderr(p.text),
    );
    this.pending = [];
    if (items.length) this.chain = this.chain.then(() => this.exec.appendOutputItems(items, this.output));
    return this.chain;
  }
}

export class RunbookController extends Disposable {
  private readonly controller: vscode.NotebookController;
  private order = 0;

  constructor(private readonly host: RunbookHost) {
    super();
    this.controller = this._register(vscode.notebooks.createNotebookController('fpsweep-runbook-steps', RUNBOOK_TYPE, 'fpsweep steps'));
    this.controller.supportedLanguages = [STEP_LANGUAGE];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = 'Runs each step with the fpsweep CLI';
    this.controller.executeHandler = async (cells, notebook) => {
      // One after another, like a person running the steps in order.
      for (const cell of cells) await this.runCell(cell, notebook);
    };
  }

  private async runCell(cell: vscode.NotebookCell, notebook: vscode.NotebookDocument): Promise<void> {
    const exec = this.controller.createNotebookCellExecution(cell);
    exec.executionOrder = ++this.order;
    exec.start(Date.now());
    const output = new vscode.NotebookCellOutput([]);
    await exec.replaceOutput([output]);
    const out = new OutputStream(exec, output);
    let ok = false;
    try {
      const step = parseStep(cell.document.getText(), this.host.steps);
      const owner = this.host.steps.find((x) => x.verbs.includes(step.verb))!;
      ok = await owner.run(
        step.verb,
        step.args,
        { distDir: this.host.distDir, env: (withToken) => this.host.env(withToken), token: exec.token, write: (t, st) => out.write(t, st) },
        this.host.packageFor(notebook),
      );
    } catch (err) {
      out.write(`${(err as Error).message}\n`, 'stderr');
    }
    await out.flush();
    exec.end(ok, Date.now());
  }
}
