// The runs of a protocol that has no tree view of its own in the extension: found with its findRoots under the
// workspace folders and their outputs/<id>/, each read with its readProgress, on a poll (network and container
// file systems need one). The tree shows their snapshots with the generic rows (progressNodes.ts).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AnyProtocol, ProgressSnapshot } from '../core/protocols/types';
import { Disposable, toDisposable } from './lifecycle';

export class PolledRuns extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this._onDidChange.event;
  private list: ProgressSnapshot[] = [];
  private key = '';
  private reading = false;

  constructor(
    readonly protocol: AnyProtocol,
    private readonly log: (line: string) => void,
    pollMs = 2000,
  ) {
    super();
    const timer = setInterval(() => void this.refresh(), pollMs);
    this._register(toDisposable(() => clearInterval(timer)));
    void this.refresh();
  }

  get snapshots(): ProgressSnapshot[] {
    return this.list;
  }

  private folders(): string[] {
    const ws = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    return [...ws, ...ws.map((w) => path.join(w, 'outputs', this.protocol.id))];
  }

  async refresh(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const roots = [...new Set((await Promise.all(this.folders().map((d) => this.protocol.findRoots(d)))).flat())].sort();
      const next: ProgressSnapshot[] = [];
      for (const root of roots) {
        try {
          next.push(await this.protocol.readProgress(root));
        } catch (err) {
          this.log(`${this.protocol.title} run ${root}: ${(err as Error).message}`);
        }
      }
      const key = JSON.stringify(next.map(({ detail, ...s }) => (void detail, s)));
      if (key === this.key) return;
      this.key = key;
      this.list = next;
      this._onDidChange.fire();
    } finally {
      this.reading = false;
    }
  }
}
