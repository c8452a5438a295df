// The caption viewer (issue 25 point 8, issue 27): one webview panel per videos root. The host reads the files
// (viewerFiles.ts) and hands the webview the model and each clip's URI; the webview (media/src/protocols/caption/)
// plays the clips in order in one <video> and draws the timeline. The clip files are reached only through
// asWebviewUri, with localResourceRoots the extension's dist/media and the videos root (its real path), in the
// webviews' one shell (webviewShell.ts; its CSP lets media from the same origin). A message from the webview is
// checked by zod and a picked stem must be one of the root's videos. Each clip's MP3 sidecar goes the same way (the
// webview plays it as the sound, the video muted: issue 36 point 2); "Open in system player" names a clip by its
// position, and the host opens the file it read itself, never a path from the webview.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CaptionProgressDetail } from '../../../core/protocols/caption/progressTypes';
import { pickerVideos } from '../../../core/protocols/caption/viewerModel';
import { Disposable } from '../../lifecycle';
import { webviewHtml, webviewOptions } from '../../webviewShell';
import { listVideoStems, readViewerVideo, restoredViewerTarget } from './viewerFiles';
import { viewerRequestSchema, type ViewerHostMessage } from './viewerMessages';

export const CAPTION_VIEWER_VIEW_TYPE = 'fpsweep.captionViewer';
/** The command that opens a media file with the OS (systemPlayer.ts), registered by captionCommands.ts. */
export const OPEN_IN_SYSTEM_PLAYER = 'fpsweep.caption.openInSystemPlayer';

export interface ViewerHost {
  extensionUri: vscode.Uri;
  /** The run type's progress of `root` (states and failure reasons), or null when it has none. */
  progress(root: string): CaptionProgressDetail | null;
  /** Fires when a root's progress changed (the picker's states follow). */
  onDidChange: vscode.Event<void>;
  log(line: string): void;
}

export class CaptionViewerPanel extends Disposable {
  private static readonly panels = new Map<string, CaptionViewerPanel>();

  /** Shows the viewer of `root` (absolute), on `stem` when given. */
  static async show(host: ViewerHost, root: string, stem?: string): Promise<CaptionViewerPanel> {
    const realRoot = await fs.realpath(root);
    const open = CaptionViewerPanel.panels.get(realRoot);
    if (open) {
      open.panel.reveal();
      if (stem) await open.showVideo(stem);
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      CAPTION_VIEWER_VIEW_TYPE,
      `Captions: ${path.basename(realRoot)}`,
      vscode.ViewColumn.Active,
      viewerWebviewOptions(host.extensionUri, realRoot),
    );
    return new CaptionViewerPanel(panel, host, realRoot, stem ?? null);
  }

  /** A panel VS Code brings back after a reload, on the root and video its webview kept, once viewerFiles.ts's
   * restoredViewerTarget has checked them; else the panel goes, with a line in the log. The revived panel, or null. */
  static async revive(panel: vscode.WebviewPanel, host: ViewerHost, state: unknown): Promise<CaptionViewerPanel | null> {
    const target = await restoredViewerTarget(state, (root) => CaptionViewerPanel.panels.has(root));
    if ('refused' in target) {
      host.log(`caption viewer: not restored after the reload: ${target.refused}`);
      panel.dispose();
      return null;
    }
    panel.webview.options = viewerWebviewOptions(host.extensionUri, target.root);
    return new CaptionViewerPanel(panel, host, target.root, target.stem);
  }

  readonly root: string;
  private stems: string[] = [];

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly host: ViewerHost,
    root: string,
    private selected: string | null,
  ) {
    super();
    this.root = root;
    CaptionViewerPanel.panels.set(root, this);
    panel.iconPath = vscode.Uri.joinPath(host.extensionUri, 'resources', 'fpsweep.svg');
    panel.webview.html = this.html();
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)));
    this._register(host.onDidChange(() => void this.sendVideos()));
  }

  override dispose(): void {
    if (CaptionViewerPanel.panels.get(this.root) === this) CaptionViewerPanel.panels.delete(this.root);
    this.panel.dispose();
    super.dispose();
  }

  private post(m: ViewerHostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const m = viewerRequestSchema.safeParse(raw);
    if (!m.success) {
      this.host.log(`caption viewer: refused a message: ${m.error.issues[0]?.message}`);
      return;
    }
    if (m.data.type === 'ready') {
      await this.sendVideos();
      if (this.selected) await this.showVideo(this.selected);
    } else if (m.data.type === 'pick') await this.showVideo(m.data.stem);
    else await this.openClipExternally(m.data.stem, m.data.clip);
  }

  private async openClipExternally(stem: string, clip: number): Promise<void> {
    const v = this.stems.includes(stem) ? await readViewerVideo(this.root, stem) : null;
    const file = v && !('error' in v) ? v.clipFiles[clip] : null;
    if (!file) return this.host.log(`caption viewer: no clip ${clip} of ${stem} to open in the system player`);
    await vscode.commands.executeCommand(OPEN_IN_SYSTEM_PLAYER, vscode.Uri.file(file));
  }

  private async sendVideos(): Promise<void> {
    this.stems = await listVideoStems(this.root);
    if (this.selected === null && this.stems.length) this.selected = this.stems[0];
    this.post({ type: 'videos', root: this.root, videos: pickerVideos(this.stems, this.host.progress(this.root)), selected: this.selected });
  }

  private async showVideo(stem: string): Promise<void> {
    if (!this.stems.includes(stem)) this.stems = await listVideoStems(this.root);
    // Only a directory of this root with a segments.json: never a path the webview made up.
    if (!this.stems.includes(stem)) return this.post({ type: 'error', stem, message: `${stem} is not a video directory of ${this.root}` });
    this.selected = stem;
    const v = await readViewerVideo(this.root, stem);
    if ('error' in v) return this.post({ type: 'error', stem, message: v.error });
    const webview = this.panel.webview;
    const uris = (files: (string | null)[]) => files.map((f) => (f ? webview.asWebviewUri(vscode.Uri.file(f)).toString() : null));
    this.post({ type: 'video', model: v.model, clipUris: uris(v.clipFiles), sidecarUris: uris(v.sidecarFiles) });
  }

  private html(): string {
    // The only values put into this HTML are ours; the root's name and all data arrive by message.
    return webviewHtml(this.panel.webview, this.host.extensionUri, {
      bundle: 'captionViewer',
      title: 'caption viewer',
      data: { view: 'caption-viewer' },
      loading: 'Loading the videos…',
      media: true,
    });
  }
}

/** The panel's webview options: the webview bundles' folder, and the videos root (real path) for the clips, nothing else. */
export function viewerWebviewOptions(extensionUri: vscode.Uri, realRoot: string): vscode.WebviewOptions {
  return webviewOptions(extensionUri, [vscode.Uri.file(realRoot)]);
}
