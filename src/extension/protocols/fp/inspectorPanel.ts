// The item inspector (issue 36 point 1): one webview panel showing one FP item across its conditions. The host reads
// the item at once and hands the webview the model and each frame's URI; frames the run no longer has are made by
// the CLI next and filled in (inspectorSource.ts says why in two steps). The webview (media/src/protocols/fp/
// inspector.ts) draws the first screen first and loads the frames as they scroll into view. The page is the
// webviews' one shell (webviewShell.ts: strict CSP, nonce, theme); resources only from dist/media and the package's
// two frame stores (real paths); a frame file is checked to lie in them before it becomes a URI. After a window
// reload VS Code hands the panel back with the webview's state (revive; package.json onWebviewPanel).
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { Disposable } from '../../lifecycle';
import { webviewHtml, webviewOptions } from '../../webviewShell';
import { inspectorRequestSchema, type InspectorHostMessage } from './inspectorMessages';
import {
  checkedFrameFiles,
  frameStoreRoots,
  framesToMake,
  inspectorState,
  loadInspection,
  readInspectionHere,
  restoredInspectTarget,
  type InspectTarget,
} from './inspectorSource';
import type { ItemInspection } from '../../../core/protocols/fp/inspect/types';

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
    const options = { ...ItemInspectorPanel.options(host, roots), retainContextWhenHidden: false };
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

  /**
   * A panel VS Code brings back after a reload, on the item its webview kept, in the package followed now; a state
   * that does not parse, or no package, closes it with a line in the log.
   */
  static async revive(panel: vscode.WebviewPanel, host: InspectorHost, state: unknown, packageDir: string | undefined): Promise<void> {
    const target = restoredInspectTarget(state, packageDir);
    if ('refused' in target || ItemInspectorPanel.current) {
      host.log(`item inspector: not restored after the reload: ${'refused' in target ? target.refused : 'an inspector is open already'}`);
      panel.dispose();
      return;
    }
    const roots = await frameStoreRoots(target.packageDir);
    panel.webview.options = ItemInspectorPanel.options(host, roots);
    await new ItemInspectorPanel(panel, host, roots).showItem(target);
  }

  private static options(host: InspectorHost, roots: readonly string[]): vscode.WebviewOptions {
    return webviewOptions(
      host.extensionUri,
      roots.map((r) => vscode.Uri.file(r)),
    );
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

  /** The item at once (read here), then, when frames are missing, the same item with them made by the CLI. */
  private async load(target: InspectTarget): Promise<void> {
    const generation = ++this.generation;
    const stillShown = () => generation === this.generation;
    this.post({ type: 'loading', benchmark: target.benchmark, itemId: target.itemId });
    let making: number;
    try {
      const started = performance.now();
      const model = await readInspectionHere(target);
      const frameUris = await this.frameUris(model);
      if (!stillShown()) return;
      making = framesToMake(model);
      const readMs = Math.round(performance.now() - started);
      this.post({ type: 'item', model, frameUris, making, state: inspectorState(target), readMs });
    } catch (err) {
      if (stillShown()) this.post({ type: 'error', message: (err as Error).message });
      return;
    }
    if (!making) return;
    try {
      const model = await loadInspection(this.host.distDir, this.host.env(), target);
      const frameUris = await this.frameUris(model);
      if (stillShown()) this.post({ type: 'frames', model, frameUris });
    } catch (err) {
      if (stillShown()) this.post({ type: 'makeFailed', message: (err as Error).message });
    }
  }

  private async frameUris(model: ItemInspection): Promise<(string | null)[][]> {
    const files = await checkedFrameFiles(model, this.roots);
    const uri = (f: string | null) => (f === null ? null : this.panel.webview.asWebviewUri(vscode.Uri.file(f)).toString());
    return files.map((c) => c.map(uri));
  }
}
