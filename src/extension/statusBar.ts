// Status bar items: the sweep's overall progress and ETA, and the latest AVTime run's stage and counts; a click
// reveals the progress tree. The texts: statusBarText.ts.
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import type { SweepModel } from './sweepModel';
import type { AvtimeModel } from './avtime/avtimeModel';
import { avtimeStatusText, sweepStatusText, type StatusText } from './statusBarText';

function show(item: vscode.StatusBarItem, t: StatusText | undefined): void {
  if (!t) {
    item.hide();
    return;
  }
  item.text = t.text;
  item.tooltip = t.tooltip;
  item.accessibilityInformation = { label: t.aria };
  item.show();
}

export class SweepStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('fpsweep.status', vscode.StatusBarAlignment.Left, 50));

  constructor(private readonly model: SweepModel) {
    super();
    this.item.name = 'fpsweep progress';
    this.item.command = 'fpsweep.progress.focus';
    this._register(model.onDidChangeData(() => this.update()));
    this.update();
  }

  private update(): void {
    const v = this.model.current;
    show(this.item, v ? sweepStatusText(v) : undefined);
  }
}

export class AvtimeStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('fpsweep.avtimeStatus', vscode.StatusBarAlignment.Left, 49));

  constructor(private readonly model: AvtimeModel) {
    super();
    this.item.name = 'fpsweep AVTime run';
    this.item.command = 'fpsweep.progress.focus';
    this._register(model.onDidChangeRuns(() => this.update()));
    this.update();
  }

  private update(): void {
    const v = this.model.latest;
    show(this.item, v ? avtimeStatusText(v) : undefined);
  }
}
