// One webview panel per report kind (timing, failures, checks; avtime: one per run). The host fetches the core's report and
// hands it over; the front end (media/src/report.ts) only renders it, escaped. Strict CSP with a nonce,
// files through asWebviewUri, resources limited to dist/media; revived after a reload by the serializer.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/package/paths';
import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import type { AvtimeReportSource } from './avtimeSource';
import {
  isReportKind,
  REPORT_PROTOCOL,
  REPORT_TITLES,
  type CellFocus,
  type HostNotice,
  type HostReply,
  type ReportKind,
  type ReportViewState,
  type WebviewRequest,
} from './messages';

export const REPORT_VIEW_TYPE = 'fpsweep.report';

export interface ReportSource {
  /** The core's report for the configured package (throws with a plain message when it cannot). */
  load(): Promise<unknown>;
  /** One item (question, options, answer) of the package, for the item lookup. */
  item(benchmark: string, itemId: string): Promise<unknown>;
  packageDir(): string | undefined;
  onDidChange: vscode.Event<void>;
}

/**
 * A protocol's reports as a panel asks for them: the report model of a run (`run`: its root; the FP package has
 * one, the configured one), the protocol's own webview commands, the root files may be opened under, and when a
 * run's report changed (undefined: any).
 */
export interface ProtocolReportSource {
  report(run: string | undefined): Promise<unknown>;
  /** A protocol's own request (getItem, avtimeQueries…); throws for one it does not know. */
  request(command: string, args: unknown, run: string | undefined): Promise<unknown>;
  /** The folder the panel may open files in, checked by the protocol (never a path the webview chose unchecked). */
  rootOf(run: string | undefined): Promise<string | undefined>;
  onDidChange: vscode.Event<string | undefined>;
}

/** The report sources by protocol id (REPORT_PROTOCOL says which one a kind asks). */
export type ReportSources = Readonly<Record<string, ProtocolReportSource>>;

/** The Frames × Pixels package's reports as a protocol source. */
export function fpReportSource(s: ReportSource): ProtocolReportSource {
  return {
    report: () => s.load(),
    async request(command, args) {
      if (command !== 'getItem') throw new Error(`${command}: not a Frames × Pixels request`);
      const a = args as { benchmark?: unknown; itemId?: unknown } | undefined;
      if (typeof a?.benchmark !== 'string' || typeof a.itemId !== 'string') throw new Error('getItem needs a benchmark and an item id');
      return s.item(a.benchmark, a.itemId);
    },
    rootOf: async () => s.packageDir(),
    onDidChange: (listener, thisArg, disposables) => s.onDidChange(() => listener.call(thisArg, undefined), undefined, disposables),
  };
}

/** The AVTime runs' reports as a protocol source: one panel per run (its output root). */
export function avtimeReportSource(s: AvtimeReportSource): ProtocolReportSource {
  return {
    report: (run) => s.report(run ?? ''),
    async request(command, args, run) {
      if (command === 'avtimeQueries') return s.queries(run ?? '', args as never);
      if (command === 'avtimeQuery') {
        const a = args as { queryId?: unknown } | undefined;
        return s.query(run ?? '', typeof a?.queryId === 'string' ? a.queryId : '');
      }
      throw new Error(`${command}: not an AVTime request`);
    },
    rootOf: (run) => s.checkedRoot(run),
    onDidChange: s.onDidChange,
  };
}

/** Panels by kind; a panel per run for a protocol with many runs (AVTime). */
function panelKey(kind: ReportKind, run?: string): string {
  return run !== undefined ? `${kind}:${run}` : kind;
}

function titleOf(s: ReportViewState): string {
  return s.kind === 'avtime' && s.run ? `fpsweep: AVTime ${s.run.split(/[\\/]/).pop()}` : `fpsweep: ${REPORT_TITLES[s.kind]}`;
}

export class ReportPanel extends Disposable {
  private static readonly panels = new Map<string, ReportPanel>();

  static show(extensionUri: vscode.Uri, source: ReportSources, kind: ReportKind, focus?: CellFocus, run?: string): ReportPanel {
    const open = ReportPanel.panels.get(panelKey(kind, run));
    if (open) {
      open.panel.reveal();
      if (focus) open.setFocus(focus);
      return open;
    }
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, titleOf({ kind, run }), vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new ReportPanel(panel, extensionUri, source, { kind, focus, run });
  }

  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, source: ReportSources, state: unknown): void {
    const s = state as Partial<ReportViewState> | undefined;
    const kind = isReportKind(s?.kind) ? s!.kind : 'timing';
    // The saved run is only a name here: the protocol's source checks it is one of its runs before reading it.
    const run = typeof s?.run === 'string' ? s.run : undefined;
    const existing = ReportPanel.panels.get(panelKey(kind, run));
    if (existing) {
      // Two restored panels of one kind: keep the first.
      panel.dispose();
      return;
    }
    new ReportPanel(panel, extensionUri, source, { kind, focus: s?.focus, run });
  }

  private readonly source: ProtocolReportSource;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly sources: ReportSources,
    private state: ReportViewState,
  ) {
    super();
    const protocol = REPORT_PROTOCOL[state.kind];
    const source = sources[protocol];
    if (!source) throw new Error(`no report source for protocol '${protocol}'`);
    this.source = source;
    ReportPanel.panels.set(panelKey(state.kind, state.run), this);
    panel.title = titleOf(state);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'resources', 'fpsweep.svg');
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = this.html();
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)));
    this._register(source.onDidChange((root) => (root === undefined || root === state.run) && this.notify({ notice: 'changed' })));
  }

  override dispose(): void {
    const key = panelKey(this.state.kind, this.state.run);
    if (ReportPanel.panels.get(key) === this) ReportPanel.panels.delete(key);
    this.panel.dispose();
    super.dispose();
  }

  private setFocus(focus: CellFocus): void {
    this.state = { ...this.state, focus };
    this.notify({ notice: 'focus', focus });
  }

  private notify(n: HostNotice): void {
    void this.panel.webview.postMessage(n);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const m = raw as Partial<WebviewRequest>;
    if (typeof m?.req !== 'number' || typeof m.command !== 'string') return;
    const reply = (r: Omit<HostReply, 'seq'>) => void this.panel.webview.postMessage({ seq: m.req, ...r });
    try {
      switch (m.command) {
        case 'ready':
          reply({ res: this.state });
          return;
        case 'getReport':
          reply({ res: await this.source.report(this.state.run) });
          return;
        case 'openFile': {
          const args = (m as { args?: { file?: unknown; line?: unknown } }).args;
          await this.openFile(args?.file, args?.line);
          reply({ res: true });
          return;
        }
        default:
          // The protocol's own requests (getItem, avtimeQueries, avtimeQuery); it refuses one it does not know.
          reply({ res: await this.source.request(m.command, (m as { args?: unknown }).args, this.state.run) });
      }
    } catch (err) {
      reply({ err: (err as Error).message });
    }
  }

  /** Opens a file of the package (an AVTime panel: of its run); a path from the webview is checked to stay inside it. */
  private async openFile(file: unknown, line: unknown): Promise<void> {
    const root = await this.source.rootOf(this.state.run);
    if (!root || typeof file !== 'string') throw new Error('no package');
    // Real paths on both sides: a symlink inside the root must not lead out of it.
    const pkg = await fs.promises.realpath(root);
    const abs = await fs.promises.realpath(path.resolve(pkg, file));
    if (!isInside(pkg, abs)) throw new Error('a file outside the package');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
    const ln = typeof line === 'number' && Number.isInteger(line) && line > 0 ? line - 1 : 0;
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(ln, 0, ln, 0), preview: true });
  }

  private html(): string {
    const webview = this.panel.webview;
    const media = vscode.Uri.joinPath(this.extensionUri, 'dist', 'media');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'report.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'report.css'));
    const nonce = randomBytes(16).toString('base64');
    const csp = `default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
    // The only values put into this HTML are ours (URIs, nonce, kind); data arrives by message.
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style}" rel="stylesheet">
<title>fpsweep: ${REPORT_TITLES[this.state.kind]}</title>
</head>
<body data-kind="${this.state.kind}">
<main id="app" aria-live="polite"><p class="muted">Loading the report…</p></main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'media')],
  };
}

export class ReportPanelSerializer implements vscode.WebviewPanelSerializer {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly source: ReportSources,
  ) {}
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    ReportPanel.revive(panel, this.extensionUri, this.source, state);
  }
}
