// The view of a run type whose run roots are found by searching folders (runRootsModel.ts): its live roots for Stop,
// Refresh, a root a runbook step made followed, and its settings section re-read. A run type's view adds its tree
// section, its commands and its starts.
import type * as vscode from 'vscode';
import type { AnyProtocol, ProgressSnapshot } from '../../core/protocols/types';
import { Disposable } from '../lifecycle';
import type { ProtocolSection } from '../progressNodes';
import { RunRootsModel } from '../runRootsModel';
import type { ProtocolView, UiCommand, UiHost } from './types';

export interface RunRootsSettings {
  /** Its settings section: `fpsweep.<section>.*`. */
  section: string;
  /** Where its tree looks for roots, from the settings and the workspace folders. */
  searchFolders(): string[];
}

export abstract class RunRootsView<D> extends Disposable implements ProtocolView {
  protected readonly model: RunRootsModel<D>;
  readonly onDidChange: vscode.Event<void>;
  abstract readonly commands: readonly UiCommand[];
  readonly reportSources = {};

  constructor(
    engine: () => AnyProtocol | undefined,
    host: UiHost,
    rowOf: (s: ProgressSnapshot<D>) => unknown,
    private readonly settings: RunRootsSettings,
  ) {
    super();
    this.model = this._register(new RunRootsModel<D>(engine, host.log, rowOf));
    this.onDidChange = this.model.onDidChange;
    this.model.setFolders(settings.searchFolders());
  }

  abstract section(): ProtocolSection;

  liveRoots(): string[] {
    return this.model.all.filter((s) => s.live).map((s) => s.root);
  }

  refresh(): Promise<void> {
    return this.model.refresh();
  }

  follow(root: string): Promise<void> {
    return this.model.follow(root);
  }

  settingsChanged(e: vscode.ConfigurationChangeEvent | undefined): void {
    if (!e || e.affectsConfiguration(`fpsweep.${this.settings.section}`)) this.model.setFolders(this.settings.searchFolders());
  }
}
