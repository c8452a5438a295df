// Where the findings webview gets its data: `fpsweep findings --json` in a child process (the statistics are
// the core's, and a large package never stalls the extension host), the frames each condition really sent
// (for the token axis; only the rows appended since the last read are parsed), and the flips of one
// benchmark × contrast on request.
// It follows the artifacts: the FP report source's change event (throttled) tells the panel to fetch again.
import * as vscode from 'vscode';
import { buildFindingsView, flipsOf } from '../../../core/protocols/fp/findings/charts/buildView';
import { FramesSentTracker } from '../../../core/protocols/fp/findings/charts/framesSent';
import type { FindingsView } from '../../../core/protocols/fp/findings/charts/viewModel';
import type { Findings } from '../../../core/protocols/fp/findings/types';
import { PackageLayout } from '../../../core/protocols/fp/package/layout';
import { errorLine, startCli } from '../../cli';
import { parseFindingsOutput } from './findingsMessages';
import type { ProtocolReportSource } from '../../reports/reportPanel';
import type { ReportSource } from './reportSource';
import type { RequestHandlers } from '../../reports/requests';

export interface FindingsSourceHost {
  distDir: string;
  env(): Record<string, string>;
  /** The FP package's report source: its package and its (throttled) change event. */
  fp: Pick<ReportSource, 'packageDir' | 'onDidChange'>;
}

export class CliFindingsSource implements ProtocolReportSource<'fpFindings'> {
  /** The last findings, for the flips the webview asks for (the view itself carries none). */
  private last: Findings | undefined;
  /** Follows the results CSV of the package shown (re-made when the package changes). */
  private frames: { pkg: string; tracker: FramesSentTracker } | undefined;

  constructor(private readonly host: FindingsSourceHost) {}

  readonly onDidChange: vscode.Event<string | undefined> = (listener, thisArg, disposables) =>
    this.host.fp.onDidChange(() => listener.call(thisArg, undefined), undefined, disposables);

  async rootOf(): Promise<string | undefined> {
    return this.host.fp.packageDir();
  }

  async report(): Promise<FindingsView> {
    const pkg = this.host.fp.packageDir();
    if (!pkg) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
    const [r, frames] = await Promise.all([
      startCli({ distDir: this.host.distDir, verb: 'findings', args: ['--json', '--flips', '--package', pkg], env: this.host.env(), cwd: pkg }).done,
      this.framesOf(pkg).read(),
    ]);
    if (r.code !== 0) throw new Error(`fpsweep findings failed (exit ${r.code}): ${errorLine(r.stderr)}`);
    this.last = parseFindingsOutput(r.code, r.stdout, r.stderr);
    return buildFindingsView(this.last, frames, pkg, new Date().toISOString());
  }

  private framesOf(pkg: string): FramesSentTracker {
    if (this.frames?.pkg !== pkg) this.frames = { pkg, tracker: new FramesSentTracker(new PackageLayout(pkg).resultsCsv) };
    return this.frames.tracker;
  }

  /** The flips of one benchmark × contrast of the last findings (the arguments checked by the panel). */
  readonly requests: RequestHandlers<'fpFindings'> = {
    findingsFlips: async ({ benchmark, contrast }) => {
      if (!this.last) throw new Error('No findings yet.');
      return flipsOf(this.last, benchmark, contrast);
    },
  };
}
