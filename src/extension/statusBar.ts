// A status bar item that says what a run type's latest run is doing (the text: each run type's own, see
// statusBarText.ts); a click reveals the progress tree.
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { StatusText } from './statusBarText';

export class RunStatusBar extends Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(
    opts: { id: string; name: string; priority: number },
    private readonly text: () => StatusText | undefined,
    onDidChange: vscode.Event<unknown>,
  ) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem(opts.id, vscode.StatusBarAlignment.Left, opts.priority));
    this.item.name = opts.name;
    this.item.command = 'fpsweep.progress.focus';
    this._register(onDidChange(() => this.update()));
    this.update();
  }

  private update(): void {
    const t = this.text();
    if (!t) {
      this.item.hide();
      return;
    }
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.accessibilityInformation = { label: t.aria };
    this.item.show();
  }
}
