// The UI half of segmented captioning (issue 25 point 8): its videos roots in the progress tree (videos by state,
// live, from the run type's progress detail), "Start captioning", and the caption viewer. The engine half is found
// by id in the registry (core/protocols/registry.ts): until it is registered the tree has nothing to read, and the
// viewer, which reads the files of SPEC-AVTIME-DATA §2–§3 itself, still works (a cut's clips before any caption).
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CaptionProgressDetail } from '../../../core/protocols/caption/progressTypes';
import { engineHalf } from '../engineHalf';
import { RunRootsView } from '../runRootsView';
import type { ProtocolUi, UiHost } from '../types';
import { CaptionCommands } from './captionCommands';
import { captionSearchFolders } from './captionSettings';
import { captionRootRow, captionSection } from './captionTreeRows';
import { CAPTION_VIEWER_VIEW_TYPE, CaptionViewerPanel, type ViewerHost } from './viewerPanel';

const { engine, protocol } = engineHalf('caption', 'AVTime captions');

class CaptionView extends RunRootsView<CaptionProgressDetail> {
  readonly commands;

  constructor(host: UiHost) {
    super(engine, host, captionRootRow, { section: 'caption', searchFolders: captionSearchFolders });
    // dist/ is the extension's: its parent is the extension's folder, whose dist/media holds the viewer's bundle.
    const extensionUri = vscode.Uri.file(path.dirname(host.distDir));
    const viewerHost: ViewerHost = { extensionUri, progress: (r) => this.model.progress(r), onDidChange: this.onDidChange, log: host.log };
    const openViewer = async (root: string, stem?: string) => {
      await CaptionViewerPanel.show(viewerHost, root, stem);
      void this.model.add(root);
    };
    // After a reload VS Code brings the viewer back (package.json: onWebviewPanel:fpsweep.captionViewer).
    this._register(
      vscode.window.registerWebviewPanelSerializer(CAPTION_VIEWER_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state) => {
          const revived = await CaptionViewerPanel.revive(panel, viewerHost, state);
          if (revived) void this.model.add(revived.root);
        },
      }),
    );
    this.commands = new CaptionCommands({ distDir: host.distDir, model: this.model, output: host.output, secrets: host.secrets, openViewer }).commands;
  }

  section() {
    return captionSection(this.model.all, protocol);
  }
}

export const captionUi: ProtocolUi = { protocol, activate: (host) => new CaptionView(host) };
