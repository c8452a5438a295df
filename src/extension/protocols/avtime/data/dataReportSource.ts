// Where the AVTime data report panel gets its model: the report files of one data step (dataReportRead.ts), read
// in the host when the panel asks (they are small, but for the output rows counted for the histogram). A target from
// a webview's saved state is read only when it lies inside a workspace folder.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isInside } from '../../../../core/package/paths';
import { Disposable } from '../../../lifecycle';
import type { ProtocolReportSource } from '../../../reports/reportPanel';
import { readDataReport } from './dataReportRead';

export class DataReportSource extends Disposable implements ProtocolReportSource<'avtimeData'> {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<string | undefined>());
  readonly onDidChange = this._onDidChange.event;
  readonly requests = {};

  /** `folders()`: the workspace folders; the first is where the runbook ran the step (relative output paths). */
  constructor(private readonly folders: () => readonly string[]) {
    super();
  }

  /** A step rewrote `target`: its open panel fetches again. */
  changed(target: string): void {
    this._onDidChange.fire(target);
  }

  /** `run` checked to be an absolute path inside a workspace folder (real paths: no symlink out). */
  private async checked(run: string | undefined): Promise<{ target: string; folder: string }> {
    if (typeof run !== 'string' || !path.isAbsolute(run))
      throw new Error('No data report chosen: run a Data runbook step, or "fpsweep: Open AVTime data report".');
    const real = await fs.realpath(run).catch(() => null);
    if (real === null) throw new Error(`${run}: no such file or folder (run the step that writes it first)`);
    for (const f of this.folders()) {
      const folder = await fs.realpath(f).catch(() => null);
      if (folder !== null && isInside(folder, real)) return { target: run, folder: f };
    }
    throw new Error(`${run} is outside the workspace folders: the panel reads data reports of this workspace only`);
  }

  async report(run: string | undefined) {
    const { target, folder } = await this.checked(run);
    return readDataReport(target, this.folders()[0] ?? folder);
  }

  async rootOf(run: string | undefined): Promise<string | undefined> {
    const { target } = await this.checked(run);
    const st = await fs.stat(target);
    return st.isDirectory() ? target : path.dirname(target);
  }

  runTitle(run: string): string {
    const folder = this.folders().find((f) => isInside(f, run));
    return `AVTime data: ${folder ? path.relative(folder, run) || path.basename(run) : path.basename(run)}`;
  }
}
