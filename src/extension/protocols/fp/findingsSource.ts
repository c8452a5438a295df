// Where the findings webview gets its data: one long-lived `fpsweep findings --json --flips --follow` child per
// package (findingsChild.ts; the statistics are the core's, computed off the extension host), which answers each
// fetch with the findings and the frames each condition sent, re-reading only what changed since the last one
// ("unchanged": the view kept here is shown again). The flips of one benchmark × contrast come from the last
// findings, on request. It follows the artifacts: the FP report source's change event (throttled) tells the
// panel to fetch again.
import type * as vscode from 'vscode';
import { buildFindingsView, flipsOf } from '../../../core/protocols/fp/findings/charts/buildView';
import type { FindingsView } from '../../../core/protocols/fp/findings/charts/viewModel';
import { CONTRASTS, type Findings } from '../../../core/protocols/fp/findings/types';
import type { ProtocolReportSource } from '../../reports/reportPanel';
import type { RequestHandlers } from '../../reports/requests';
import { FindingsChild } from './findingsChild';
import type { ReportSource } from './reportSource';

export interface FindingsSourceHost {
  distDir: string;
  env(): Record<string, string>;
  /** The FP package's report source: its package and its (throttled) change event. */
  fp: Pick<ReportSource, 'packageDir' | 'onDidChange'>;
  /** Opens the item inspector (a flip's item with its contrast's two conditions first). */
  inspect(t: { benchmark: string; itemId: string; conditions: string[] }): Promise<void>;
}

export class CliFindingsSource implements ProtocolReportSource<'fpFindings'>, vscode.Disposable {
  /** The last findings, for the flips the webview asks for (the view itself carries none), and their view. */
  private last: { findings: Findings; view: FindingsView } | undefined;
  private child: FindingsChild | undefined;

  constructor(private readonly host: FindingsSourceHost) {}

  readonly onDidChange: vscode.Event<string | undefined> = (listener, thisArg, disposables) =>
    this.host.fp.onDidChange(() => listener.call(thisArg, undefined), undefined, disposables);

  async rootOf(): Promise<string | undefined> {
    return this.host.fp.packageDir();
  }

  async report(): Promise<FindingsView> {
    const pkg = this.host.fp.packageDir();
    if (!pkg) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
    if (this.child?.packageDir !== pkg) {
      this.child?.dispose();
      this.child = new FindingsChild({ distDir: this.host.distDir, packageDir: pkg, env: this.host.env() });
      this.last = undefined;
    }
    const r = await this.child.ask();
    if ('unchanged' in r) {
      if (this.last) return this.last.view;
      // Nothing kept (a failed build of the view): a new child answers in full.
      this.child.dispose();
      this.child = undefined;
      return this.report();
    }
    this.last = { findings: r.findings, view: buildFindingsView(r.findings, r.framesSent, pkg, new Date().toISOString()) };
    return this.last.view;
  }

  dispose(): void {
    this.child?.dispose();
    this.child = undefined;
  }

  /** The flips of one benchmark × contrast of the last findings (the arguments checked by the panel). */
  readonly requests: RequestHandlers<'fpFindings'> = {
    findingsFlips: async ({ benchmark, contrast }) => {
      if (!this.last) throw new Error('No findings yet.');
      return flipsOf(this.last.findings, benchmark, contrast);
    },
    inspectFlip: async ({ benchmark, itemId, contrast }) => {
      const [, first, second] = CONTRASTS.find((c) => c[0] === contrast)!;
      await this.host.inspect({ benchmark, itemId, conditions: [first, second] });
      return true;
    },
  };
}
