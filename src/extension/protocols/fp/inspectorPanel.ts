// The item inspector (issue 36 point 1): one webview panel showing one FP item across its conditions. The host reads
// the model through the CLI (inspectorSource.ts) and hands the webview the model and each frame's URI; the webview
// (media/src/protocols/fp/inspector.ts) lays it out and loads the frames as they scroll into view. The page is the
// webviews' one shell (webviewShell.ts: strict CSP, nonce, theme); resources only from dist/media and the package's
// two frame stores (real paths); a frame file is checked to lie in them before it becomes a URI.
import * as vscode from 'vscode';
import { Disposable } from '../../lifecycle';
import { webviewHtml, webviewOptions } from '../../webviewShell';
import { inspectorRequestSchema, type InspectorHostMessage } from './inspectorMessages';
import { checkedFrameFiles, frameStoreRoots, loadInspection, type InspectTarget } from './inspectorSource';

export const ITEM_INSPECTOR_VIEW_TYPE = 'fpsweep.itemInspector';

export interface InspectorHost {
  extensionUri: vscode.Uri;
  distDir: string;
  env(): Record<string, string>;
  log(line: string): void;
}

export class ItemInspectorPanel extends Disposable {
  /** One inspector: showing another item replaces the one shown (a flip after a flip, not a pile of tabs). */
  private static current: ItemInspectorPanel | undefined;

  static async show(host: InspectorHost, target: InspectTarget): Promise<void> {
    const roots = await frameStoreRoots(target.packageDir);
    const options = {
      ...webviewOptions(
        host.extensionUri,
        roots.map((r) => vscode.Uri.file(r)),
      ),
      retainContextWhenHidden: false,
    };
    let p = ItemInspectorPanel.current;
    if (p && p.roots.join('\n') !== roots.join('\n')) {
      // Another package: its stores are other resource roots, so a new page.
      p.dispose();
      p = undefined;
    }
    if (!p) {
      const panel = vscode.window.createWebviewPanel(ITEM_INSPECTOR_VIEW_TYPE, 'Item inspector', vscode.ViewColumn.Active, options);
      p = new ItemInspectorPanel(panel, host, roots);
    } else p.panel.reveal();
    await p.showItem(target);
  }

  private ready = false;
  private target: InspectTarget | undefined;
  /** Counts loads, so an older load that ends late does not replace a newer item. */
  private generation = 0;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly host: InspectorHost,
    private readonly roots: readonly string[],
  ) {
    super();
    ItemInspectorPanel.current = this;
    panel.iconPath = vscode.Uri.joinPath(host.extensionUri, 'resources', 'fpsweep.svg');
    panel.webview.html = webviewHtml(panel.webview, host.extensionUri, {
      bundle: 'itemInspector',
      title: 'item inspector',
      data: { view: 'item-inspector' },
      loading: 'Loading the item…',
    });
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(
      panel.webview.onDidReceiveMessage((m) => {
        if (!inspectorRequestSchema.safeParse(m).success) return host.log('item inspector: refused a message from its webview');
        this.ready = true;
        if (this.target) void this.load(this.target);
      }),
    );
  }

  override dispose(): void {
    if (ItemInspectorPanel.current === this) ItemInspectorPanel.current = undefined;
    this.panel.dispose();
    super.dispose();
  }

  private post(m: InspectorHostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private async showItem(target: InspectTarget): Promise<void> {
    this.target = target;
    this.panel.title = `Inspect: ${target.benchmark} ${target.itemId}`;
    // Before `ready` the page cannot take the item yet; `ready` loads the last target asked for.
    if (this.ready) await this.load(target);
  }

  private async load(target: InspectTarget): Promise<void> {
    const generation = ++this.generation;
    this.post({ type: 'loading', benchmark: target.benchmark, itemId: target.itemId });
    try {
      const model = await loadInspection(this.host.distDir, this.host.env(), target);
      const files = await checkedFrameFiles(model, this.roots);
      if (generation !== this.generation) return;
      const uri = (f: string | null) => (f === null ? null : this.panel.webview.asWebviewUri(vscode.Uri.file(f)).toString());
      this.post({ type: 'item', model, frameUris: files.map((c) => c.map(uri)) });
    } catch (err) {
      if (generation === this.generation) this.post({ type: 'error', message: (err as Error).message });
    }
  }
}
