// One status bar item: overall progress and ETA; a click reveals the progress tree.
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import { percent } from './progressData';
import { etaText } from './progressTree';
import type { SweepModel } from './sweepModel';

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
    if (!v) {
      this.item.hide();
      return;
    }
    const pct = percent(v.finished, v.total);
    const eta = v.live ? etaText(v.etaSeconds) : '';
    const icon = v.live ? '$(sync~spin)' : v.failed ? '$(warning)' : '$(pulse)';
    const what = v.live ? v.mode ?? 'run' : 'sweep';
    this.item.text = `${icon} fpsweep ${what} ${pct}%${eta ? ` · ${eta}` : ''}`;
    this.item.tooltip = `${v.finished} of ${v.total} rows finished${v.failed ? `, ${v.failed} failed` : ''}` +
      `${v.live ? ` — worker ${v.state}` : ' — no worker running (counted from the artifacts)'}` +
      `${v.summary ? `\n${v.summary}` : ''}\nClick to show the progress tree.`;
    this.item.accessibilityInformation = { label: this.item.text.replace(/\$\([^)]*\)\s*/g, '') };
    this.item.show();
  }
}
