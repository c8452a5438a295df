// The UI half of the cut run type (issue 27 point 6): its output roots in the progress tree (source videos by state,
// degraded cuts said, live from the run type's progress detail), "Cut videos…" in the extension's one Start, and
// the tree following an output root a runbook step made. The engine half is found by id in the registry
// (core/protocols/registry.ts): until it is registered the tree has nothing to read. The caption viewer shows a cut's
// clips and boundaries: an output root is also a caption videos root.
import * as vscode from 'vscode';
import type { CutProgressDetail } from '../../../core/protocols/cut/progressTypes';
import { PROTOCOLS } from '../../../core/protocols/registry';
import type { RunRoot } from '../../../core/protocols/types';
import { Disposable } from '../../lifecycle';
import { RunRootsModel } from '../../runRootsModel';
import type { ProtocolUi, ProtocolView, RunStart, UiHost } from '../types';
import { cutSearchFolders } from './cutSettings';
import { startCut } from './cutStart';
import { cutRootRow, cutSection } from './cutTreeRows';

const ID = 'cut';
const engine = () => PROTOCOLS.get(ID);

/** The run type as the extension names it; its layout is the engine half's (Stop asks it only of a live root). */
const protocol = {
  id: ID,
  get title(): string {
    return engine()?.title ?? 'Cuts';
  },
  runRoot(root: string): RunRoot {
    const p = engine();
    if (!p) throw new Error('the cut run type is not in this build');
    return p.runRoot(root);
  },
};

class CutView extends Disposable implements ProtocolView {
  private readonly model: RunRootsModel<CutProgressDetail>;
  readonly onDidChange: vscode.Event<void>;
  readonly commands = [];
  readonly reportSources = {};
  readonly starts: readonly RunStart[];

  constructor(host: UiHost) {
    super();
    this.model = this._register(new RunRootsModel<CutProgressDetail>(engine, host.log, cutRootRow));
    this.onDidChange = this.model.onDidChange;
    const startHost = { distDir: host.distDir, output: host.output, model: this.model };
    this.starts = [
      {
        label: 'Cut videos…',
        detail: 'fpsweep avtime cut: each source video into segments.json and clips/ (builtin cutter or yours)',
        run: (root) => startCut(startHost, root),
      },
    ];
    this.model.setFolders(cutSearchFolders());
  }

  section() {
    return cutSection(this.model.all, protocol);
  }

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
    if (!e || e.affectsConfiguration('fpsweep.cut')) this.model.setFolders(cutSearchFolders());
  }
}

export const cutUi: ProtocolUi = { protocol, activate: (host) => new CutView(host) };
