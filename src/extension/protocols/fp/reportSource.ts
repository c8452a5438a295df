// Where the report webviews get their data: the core's report for the package, computed in a child
// process (`fpsweep report --json`) so a large package never stalls the extension host.
import * as vscode from 'vscode';
import { Disposable } from '../../lifecycle';
import { errorLine, startCli } from '../../cli';
import { reportSchema, type Report } from '../../../core/protocols/fp/report/schema';
import { itemSchema, type Item } from '../../../core/protocols/fp/package/schemas';
import { readJsonl } from '../../../core/package/jsonl';
import { PackageLayout } from '../../../core/protocols/fp/package/layout';
import type { ProtocolReportSource } from '../../reports/reportPanel';
import type { ItemView } from './reportContract';
import { parseBoundedJson } from '../../../core/io/boundedJson';

export interface ReportSource {
  /** The core's report for the configured package (throws with a plain message when it cannot). */
  load(): Promise<Report>;
  /** One item (question, options, answer) of the package, for the item lookup. */
  item(benchmark: string, itemId: string): Promise<ItemView>;
  packageDir(): string | undefined;
  onDidChange: vscode.Event<void>;
}

/**
 * The Frames × Pixels package's reports as a panel's source (one package: the configured one); `inspect` opens the
 * item inspector (a failure row's item, its condition first).
 */
export function fpReportSource(
  s: ReportSource,
  inspect: (t: { benchmark: string; itemId: string; conditions: string[] }) => Promise<void>,
): ProtocolReportSource<'fp'> {
  return {
    report: () => s.load(),
    requests: {
      getItem: (a) => s.item(a.benchmark, a.itemId),
      inspectItem: async (a) => {
        await inspect({ benchmark: a.benchmark, itemId: a.itemId, conditions: a.condition ? [a.condition] : [] });
        return true;
      },
    },
    rootOf: async () => s.packageDir(),
    onDidChange: (listener, thisArg, disposables) => s.onDidChange(() => listener.call(thisArg, undefined), undefined, disposables),
  };
}

export interface ReportSourceHost {
  distDir: string;
  packageDir(): string | undefined;
  env(): Record<string, string>;
  /** Fires when progress changed (the worker wrote rows). */
  onDidChangeProgress: vscode.Event<void>;
}

export class CliReportSource extends Disposable implements ReportSource {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this._onDidChange.event;
  private lastFire = 0;
  private pendingFire: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: ReportSourceHost,
    private readonly minIntervalMs = 5000,
  ) {
    super();
    // A live run changes the report every second; the panels refetch at most every few seconds.
    this._register(host.onDidChangeProgress(() => this.schedule()));
    this._register({ dispose: () => this.pendingFire && clearTimeout(this.pendingFire) });
  }

  packageDir(): string | undefined {
    return this.host.packageDir();
  }

  private schedule(): void {
    if (this.pendingFire) return;
    const wait = Math.max(0, this.lastFire + this.minIntervalMs - Date.now());
    this.pendingFire = setTimeout(() => {
      this.pendingFire = undefined;
      this.lastFire = Date.now();
      this._onDidChange.fire();
    }, wait);
  }

  async load(): Promise<Report> {
    const pkg = this.host.packageDir();
    if (!pkg) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
    const r = await startCli({ distDir: this.host.distDir, verb: 'report', args: ['--json', '--package', pkg], env: this.host.env(), cwd: pkg }).done;
    // Exit 1 means a check failed: the report is still printed, and showing it is the point.
    if (r.code !== 0 && r.code !== 1) throw new Error(`fpsweep report failed (exit ${r.code}): ${errorLine(r.stderr)}`);
    let json: unknown;
    try {
      json = parseBoundedJson(r.stdout);
    } catch {
      throw new Error(`fpsweep report failed (exit ${r.code}): ${errorLine(r.stderr) || 'it printed no JSON'}`);
    }
    const parsed = reportSchema.safeParse(json);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new Error(`fpsweep report printed a report this extension does not understand (${i.path.join('.')}: ${i.message}).`);
    }
    return parsed.data;
  }

  /** One item of items/samples/<benchmark>.jsonl (names checked by PackageLayout before any path). */
  async item(benchmark: string, itemId: string): Promise<Item> {
    const pkg = this.host.packageDir();
    if (!pkg) throw new Error('No run package.');
    const file = new PackageLayout(pkg).samplesFile(benchmark);
    let found: Item | undefined;
    try {
      found = (await readJsonl(file, itemSchema)).records.find((r) => r.value.item_id === itemId)?.value;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`No benchmark ${benchmark} in this package.`);
      throw err;
    }
    if (!found) throw new Error(`No item ${itemId} in ${benchmark}.`);
    return found;
  }
}
