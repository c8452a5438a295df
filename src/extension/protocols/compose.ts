// The extension's views composed from the run types' UIs (no vscode at run time: tested under plain mocha with a
// fake run type). One place turns the list into the tree's rows, the command table, the report sources, the
// runbook's steps, the live runs that Stop stops and the context keys that show it.
import type { TreeRow } from '../progressNodes';
import { treeRoots } from '../progressNodes';
import type { ReportSources } from '../reports/reportPanel';
import type { RunbookSteps } from '../runbook/steps';
import type { ProtocolUi, ProtocolView, RunStart, UiCommand, UiHost } from './types';

/** The context key that is true while a run of run type `id` has a live worker (package.json's menus use it). */
export const runningKey = (id: string) => `fpsweep.running.${id}`;
/** True while any run has a live worker. */
export const ANY_RUNNING_KEY = 'fpsweep.running';

export interface LiveRun {
  ui: ProtocolUi;
  root: string;
}

export class ComposedUi {
  readonly views: readonly { ui: ProtocolUi; view: ProtocolView }[];

  constructor(uis: readonly ProtocolUi[], host: UiHost) {
    const ids = uis.map((u) => u.protocol.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice) throw new Error(`two UIs for run type '${twice}'`);
    this.views = uis.map((ui) => ({ ui, view: ui.activate(host) }));
  }

  /** The progress tree's rows: each run type's section, in the registry's order. */
  treeRows(): TreeRow[] {
    return treeRoots(this.views.map((v) => v.view.section()));
  }

  /** Every run type's commands; a command id claimed twice is an error here, not a silent override. */
  commands(): UiCommand[] {
    const all = this.views.flatMap((v) => v.view.commands);
    const seen = new Set<string>();
    for (const c of all) {
      if (seen.has(c.id)) throw new Error(`command ${c.id} is registered by two run types`);
      seen.add(c.id);
    }
    return all;
  }

  /** The report sources of every run type, by source id. */
  reportSources(): ReportSources {
    const out: Record<string, ReportSources[string]> = {};
    for (const { ui, view } of this.views)
      for (const [id, s] of Object.entries(view.reportSources)) {
        if (out[id]) throw new Error(`report source '${id}' of ${ui.protocol.id} is another run type's`);
        out[id] = s;
      }
    return out;
  }

  runbookSteps(): RunbookSteps[] {
    return this.views.flatMap((v) => (v.view.runbook ? [v.view.runbook] : []));
  }

  /** Every run type's ways to start a run, in the registry's order. */
  starts(): { ui: ProtocolUi; start: RunStart }[] {
    return this.views.flatMap(({ ui, view }) => (view.starts ?? []).map((start) => ({ ui, start })));
  }

  /** The run types that open a report. */
  reporters(): { ui: ProtocolUi; view: ProtocolView }[] {
    return this.views.filter((v) => v.view.openReport !== undefined);
  }

  /**
   * The run type whose tree section holds `row` (a command called from a run row). Its id decides: one folder may be
   * two run types' root (a cut's output root is also a caption videos root); a root alone, the first that shows it.
   */
  ownerOf(row: Pick<TreeRow, 'id' | 'root'> | string): { ui: ProtocolUi; view: ProtocolView } | undefined {
    const find = (match: (r: TreeRow) => boolean) => {
      const holds = (rows: readonly TreeRow[]): boolean => rows.some((r) => match(r) || holds(r.children));
      return this.views.find((v) => holds(v.view.section().rows));
    };
    if (typeof row !== 'string') {
      const byId = find((r) => r.id === row.id);
      if (byId || row.root === undefined) return byId;
    }
    const root = typeof row === 'string' ? row : row.root;
    return find((r) => r.root === root);
  }

  /** `root`, made outside any run type's commands (a runbook step's output), followed by each run type that recognises it. */
  async follow(root: string): Promise<void> {
    await Promise.all(this.views.map((v) => v.view.follow?.(root)));
  }

  /** The runs whose worker lives now, of every run type. */
  liveRuns(): LiveRun[] {
    return this.views.flatMap(({ ui, view }) => view.liveRoots().map((root) => ({ ui, root })));
  }

  /** The context keys and their values now: one per run type, and one for any. */
  contextKeys(): [string, boolean][] {
    const per = this.views.map(({ ui, view }): [string, boolean] => [runningKey(ui.protocol.id), view.liveRoots().length > 0]);
    return [...per, [ANY_RUNNING_KEY, per.some(([, on]) => on)]];
  }

  viewDescription(): string | undefined {
    for (const v of this.views) {
      const d = v.view.viewDescription?.();
      if (d !== undefined) return d;
    }
    return undefined;
  }
}
