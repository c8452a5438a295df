// Where the AVTime report panel gets its data. The report model (its RunProtocol.report) is computed in a child
// process, `fpsweep report --package <output root> --json`, as FP's is: the seam every computed view reads through
// (ARCHITECTURE, "The seam"). The query browser's lookups (one query's answers and trace) are answered in the host
// from the run's files, loaded once per change of those files: a child per click would cost half a second each.
// Both are kept until the run's files change. A run root from a webview's saved state is used only once it is
// found to be an AVTime run.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { artifactStamp, discoverAvtimeRuns } from '../../../core/protocols/avtime/progress';
import { cleanFilter, listQueries, loadAvtimeRun, queryDetail, type LoadedAvtimeRun } from '../../../core/protocols/avtime/report';
import type { AvtimeQueryDetail, AvtimeQueryFilter, AvtimeQueryList, AvtimeReport } from '../../../core/protocols/avtime/reportTypes';
import { Disposable } from '../../lifecycle';
import { errorLine, startCli } from '../../cli';
import type { AvtimeModel } from './avtimeModel';
import { avtimeReportSchema } from './reportContract';
import type { ProtocolReportSource } from '../../reports/reportPanel';
import { parseBoundedJson } from '../../../core/io/boundedJson';

export interface AvtimeReportSource {
  report(run: string): Promise<AvtimeReport>;
  queries(run: string, filter: AvtimeQueryFilter): Promise<AvtimeQueryList>;
  query(run: string, queryId: string): Promise<AvtimeQueryDetail>;
  /** `run` checked to be an AVTime output root (throws otherwise). */
  checkedRoot(run: string | undefined): Promise<string>;
  /** Fires with the output root of a run whose files changed. */
  onDidChange: vscode.Event<string>;
}

export class HostAvtimeReportSource extends Disposable implements AvtimeReportSource {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<string>());
  readonly onDidChange = this._onDidChange.event;
  private cache = new Map<string, { stamp: string; run: LoadedAvtimeRun }>();
  private reports = new Map<string, { stamp: string; report: Promise<AvtimeReport> }>();

  constructor(
    model: AvtimeModel,
    private readonly cli: { distDir: string; env(): Record<string, string> },
  ) {
    super();
    this._register(model.onDidChangeRuns((d) => d.changed.forEach((root) => this._onDidChange.fire(root))));
  }

  private async stamp(root: string): Promise<string> {
    const evalDir = path.join(root, 'eval');
    const extra = await Promise.all(
      (await fs.readdir(evalDir).catch(() => [] as string[])).flatMap((id) =>
        ['run_config.json', 'summary_ci.json', 't2e_trace.jsonl', 'e2t_trace.jsonl', 'e2e_trace.jsonl'].map((f) =>
          fs.stat(path.join(evalDir, id, f)).then(
            (s) => `${id}/${f}:${s.size}:${s.mtimeMs}`,
            () => `${id}/${f}:-`,
          ),
        ),
      ),
    );
    return `${await artifactStamp(root)}|${extra.join('|')}`;
  }

  /**
   * `run` (a name from the webview, or its saved state) checked to be an AVTime output root by its files, as the
   * tree finds runs: the boundary for everything the panel reads or opens.
   */
  async checkedRoot(run: string | undefined): Promise<string> {
    if (typeof run !== 'string' || !path.isAbsolute(run))
      throw new Error('No AVTime run chosen: open the report from the progress tree or "fpsweep: Open AVTime report".');
    const root = path.resolve(run);
    if (!(await discoverAvtimeRuns(path.dirname(root))).includes(root)) throw new Error(`${root} is not an AVTime run's output root (or it is gone).`);
    return root;
  }

  /** The loaded run, after checking `run` is an AVTime output root. */
  private async load(run: string): Promise<LoadedAvtimeRun> {
    const root = await this.checkedRoot(run);
    const stamp = await this.stamp(root);
    const hit = this.cache.get(root);
    if (hit && hit.stamp === stamp) return hit.run;
    const loaded = await loadAvtimeRun(root);
    this.cache.set(root, { stamp, run: loaded });
    return loaded;
  }

  async report(run: string): Promise<AvtimeReport> {
    const root = await this.checkedRoot(run);
    const stamp = await this.stamp(root);
    const hit = this.reports.get(root);
    if (hit && hit.stamp === stamp) return hit.report;
    const report = this.reportFromCli(root);
    this.reports.set(root, { stamp, report });
    report.catch(() => this.reports.get(root)?.report === report && this.reports.delete(root));
    return report;
  }

  private async reportFromCli(root: string): Promise<AvtimeReport> {
    const r = await startCli({ distDir: this.cli.distDir, verb: 'report', args: ['--package', root, '--json'], env: this.cli.env(), cwd: root }).done;
    if (r.code !== 0) throw new Error(`fpsweep report failed (exit ${r.code ?? r.signal}): ${errorLine(r.stderr) || 'no message'}`);
    try {
      return avtimeReportSchema.parse(parseBoundedJson(r.stdout));
    } catch (err) {
      throw new Error(`fpsweep report printed no AVTime report this extension understands: ${(err as Error).message.slice(0, 300)}`);
    }
  }

  async queries(run: string, filter: AvtimeQueryFilter): Promise<AvtimeQueryList> {
    return listQueries(await this.load(run), cleanFilter(filter));
  }

  async query(run: string, queryId: string): Promise<AvtimeQueryDetail> {
    if (typeof queryId !== 'string' || !queryId) throw new Error('avtimeQuery needs a query id');
    return queryDetail(await this.load(run), queryId);
  }
}

/** The AVTime runs' reports as a panel's source: one panel per run (its output root). */
export function avtimeReportSource(s: AvtimeReportSource): ProtocolReportSource<'avtime'> {
  return {
    report: (run) => s.report(run ?? ''),
    requests: {
      avtimeQueries: (filter, run) => s.queries(run ?? '', filter),
      avtimeQuery: (a, run) => s.query(run ?? '', a.queryId),
    },
    rootOf: (run) => s.checkedRoot(run),
    onDidChange: s.onDidChange,
    runTitle: (run) => `AVTime ${run.split(/[\\/]/).pop()}`,
  };
}
