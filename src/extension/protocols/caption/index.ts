// The UI half of segmented captioning (issue 25 point 8): its videos roots in the progress tree (videos by state,
// live, from the run type's progress detail), "Start captioning", and the caption viewer. The engine half is found
// by id in the registry (core/protocols/registry.ts): until it is registered the tree has nothing to read, and the
// viewer, which reads the files of SPEC-AVTIME-DATA §2–§3 itself, still works (a cut's clips before any caption).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PROTOCOLS } from '../../../core/protocols/registry';
import type { RunRoot } from '../../../core/protocols/types';
import { Disposable } from '../../lifecycle';
import type { ProtocolUi, ProtocolView, UiHost } from '../types';
import { CaptionCommands } from './captionCommands';
import { CaptionModel } from './captionModel';
import { captionSearchFolders } from './captionSettings';
import { captionSection } from './captionTreeRows';
import { CaptionViewerPanel } from './viewerPanel';

const ID = 'caption';
const engine = () => PROTOCOLS.get(ID);

/** The run type as the extension names it; its layout is the engine half's (Stop asks it only of a live root). */
const protocol = {
  id: ID,
  get title(): string {
    return engine()?.title ?? 'AVTime captions';
  },
  runRoot(root: string): RunRoot {
    const p = engine();
    if (!p) throw new Error('the caption run type is not in this build');
    return p.runRoot(root);
  },
};

class CaptionView extends Disposable implements ProtocolView {
  private readonly model: CaptionModel;
  readonly onDidChange: vscode.Event<void>;
  readonly commands;
  readonly reportSources = {};

  constructor(host: UiHost) {
    super();
    this.model = this._register(new CaptionModel(engine, host.log));
    this.onDidChange = this.model.onDidChange;
    // dist/ is the extension's: its parent is the extension's folder, whose dist/media holds the viewer's bundle.
    const extensionUri = vscode.Uri.file(path.dirname(host.distDir));
    const openViewer = async (root: string, stem?: string) => {
      await CaptionViewerPanel.show({ extensionUri, progress: (r) => this.model.progress(r), onDidChange: this.onDidChange, log: host.log }, root, stem);
      void this.model.add(root);
    };
    this.commands = new CaptionCommands({ distDir: host.distDir, model: this.model, output: host.output, openViewer }).commands;
    this.model.setFolders(captionSearchFolders());
  }

  section() {
    return captionSection(this.model.all, protocol);
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
    if (!e || e.affectsConfiguration('fpsweep.caption')) this.model.setFolders(captionSearchFolders());
  }
}

export const captionUi: ProtocolUi = { protocol, activate: (host) => new CaptionView(host) };
