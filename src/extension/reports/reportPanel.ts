// One webview panel per report kind (a run type with many runs: one per run); the kinds and their sources come
// from the run types' report contracts and UIs. The host fetches the core's report and
// hands it over; the front end (media/src/report.ts) only renders it, escaped. The page is the webviews' one shell
// (webviewShell.ts: strict CSP with a nonce, files through asWebviewUri, resources limited to dist/media); revived
// after a reload by the serializer.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/package/paths';
import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import { webviewHtml, webviewOptions } from '../webviewShell';
import {
  isReportKind,
  REPORT_KINDS,
  REPORT_PROTOCOL,
  REPORT_TITLES,
  type CellFocus,
  type HostNotice,
  type HostReply,
  type ProtocolReports,
  type ReportKind,
  type ReportProtocol,
  type ReportViewState,
  type RequestResult,
  type WebviewRequest,
} from './messages';
import { answerProtocolRequest, checkWebviewRequest, type RequestHandlers } from './requests';

export const REPORT_VIEW_TYPE = 'fpsweep.report';

/**
 * A source's reports as a panel asks for them: the report model of a run (`run`: its root; a run type with one
 * run, such as FP's configured package, ignores it), the handlers of the source's own webview requests (its report
 * contract's), the root files may be opened under, and when a run's report changed (undefined: any).
 */
export interface ProtocolReportSource<P extends ReportProtocol = ReportProtocol> {
  report(run: string | undefined): Promise<ProtocolReports[P]>;
  /** The source's own requests (getItem, avtimeQueries…), each with its arguments already checked. */
  readonly requests: RequestHandlers<P>;
  /** The folder the panel may open files in, checked by the source (never a path the webview chose unchecked). */
  rootOf(run: string | undefined): Promise<string | undefined>;
  onDidChange: vscode.Event<string | undefined>;
  /** The panel's title for one run (default: the kind's title). */
  runTitle?(run: string): string;
}

/** The report sources by source id, from every run type's UI (REPORT_PROTOCOL says which one a kind asks). */
export type ReportSources = Readonly<Record<string, ProtocolReportSource>>;

/** Panels by kind; a panel per run for a protocol with many runs (AVTime). */
function panelKey(kind: ReportKind, run?: string): string {
  return run !== undefined ? `${kind}:${run}` : kind;
}

function sourceOf(sources: ReportSources, kind: ReportKind): ProtocolReportSource {
  const s = sources[REPORT_PROTOCOL[kind]];
  if (!s) throw new Error(`no run type answers the ${REPORT_TITLES[kind]} report`);
  return s;
}

function titleOf(source: ProtocolReportSource, s: ReportViewState): string {
  return `fpsweep: ${s.run && source.runTitle ? source.runTitle(s.run) : REPORT_TITLES[s.kind]}`;
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
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, titleOf(sourceOf(source, kind), { kind, run }), vscode.ViewColumn.Active, {
      ...webviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    return new ReportPanel(panel, extensionUri, source, { kind, focus, run });
  }

  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, source: ReportSources, state: unknown): void {
    const s = state as Partial<ReportViewState> | undefined;
    const kind = isReportKind(s?.kind) ? s!.kind : REPORT_KINDS[0];
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
    this.source = sourceOf(sources, state.kind);
    ReportPanel.panels.set(panelKey(state.kind, state.run), this);
    panel.title = titleOf(this.source, state);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'resources', 'fpsweep.svg');
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = this.html();
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(panel.webview.onDidReceiveMessage((m) => void this.onMessage(m)));
    this._register(this.source.onDidChange((root: string | undefined) => (root === undefined || root === state.run) && this.notify({ notice: 'changed' })));
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
    const checked = checkWebviewRequest(raw);
    if (!checked.ok) {
      // A message with no request number cannot be answered; one with a number learns why it was refused.
      if (checked.req !== null) void this.panel.webview.postMessage({ seq: checked.req, err: checked.error } satisfies HostReply);
      return;
    }
    const m = checked.request;
    try {
      void this.panel.webview.postMessage({ seq: m.req, res: await this.answer(m) } satisfies HostReply);
    } catch (err) {
      void this.panel.webview.postMessage({ seq: m.req, err: (err as Error).message } satisfies HostReply);
    }
  }

  private async answer(m: WebviewRequest): Promise<RequestResult<WebviewRequest['command']>> {
    switch (m.command) {
      case 'ready':
        return { ...this.state, title: REPORT_TITLES[this.state.kind] };
      case 'getReport':
        return this.source.report(this.state.run);
      case 'openFile':
        await this.openFile(m.args.file, m.args.line);
        return true;
      default:
        // The protocol's own requests (getItem, avtimeQueries, avtimeQuery, findingsFlips); another protocol's is refused.
        return answerProtocolRequest(this.source.requests, m, this.state.run, REPORT_TITLES[this.state.kind]);
    }
  }

  /** Opens a file of the package (an AVTime panel: of its run); a path from the webview is checked to stay inside it. */
  private async openFile(file: string, line: number | undefined): Promise<void> {
    const root = await this.source.rootOf(this.state.run);
    if (!root) throw new Error('no package');
    // Real paths on both sides: a symlink inside the root must not lead out of it.
    const pkg = await fs.promises.realpath(root);
    const abs = await fs.promises.realpath(path.resolve(pkg, file));
    if (!isInside(pkg, abs)) throw new Error('a file outside the package');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
    const ln = line !== undefined ? line - 1 : 0;
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(ln, 0, ln, 0), preview: true });
  }

  private html(): string {
    // The only values put into this HTML are ours (the kind and its title); data arrives by message.
    const kind = this.state.kind;
    return webviewHtml(this.panel.webview, this.extensionUri, { bundle: 'report', title: REPORT_TITLES[kind], data: { kind }, loading: 'Loading the report…' });
  }
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
