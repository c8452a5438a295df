// The "Progress" tree: benchmark → condition, plus a servers node, and the AVTime runs (avtime/avtimeTree.ts).
// It only maps the models' views to TreeItems (tree-view-sample's shape); the models say when to refresh:
// the sweep model the whole tree, the AVTime model only the runs that changed.
import * as vscode from 'vscode';
import type { ServerStatus } from '../core/runner/statusSchema';
import type { ServerState } from '../core/serving/serverState';
import { Disposable } from './lifecycle';
import { benchmarkEtaSeconds, cellState, finishedOf, formatEta, percent, type BenchmarkView, type CellState, type CellView } from './progressData';
import type { SweepModel } from './sweepModel';
import { AvtimeNodes, avtimeItem, isAvtimeNode, type AvtimeNode } from './avtime/avtimeTree';
import type { AvtimeModel } from './avtime/avtimeModel';

export type ProgressNode =
  | AvtimeNode
  | { kind: 'message'; text: string }
  | { kind: 'servers'; servers: ServerStatus[] }
  | { kind: 'server'; server: ServerStatus }
  | { kind: 'benchmark'; bench: BenchmarkView; live: boolean; etaSeconds: number | null }
  | { kind: 'cell'; cell: CellView; live: boolean };

const CELL_ICONS: Record<CellState, vscode.ThemeIcon> = {
  done: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  running: new vscode.ThemeIcon('sync~spin'),
  todo: new vscode.ThemeIcon('circle-large-outline'),
  na: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
};

const SERVER_ICONS: Record<ServerState, vscode.ThemeIcon> = {
  up: new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed')),
  starting: new vscode.ThemeIcon('loading~spin'),
  restarting: new vscode.ThemeIcon('debug-restart', new vscode.ThemeColor('list.warningForeground')),
  down: new vscode.ThemeIcon('vm-outline', new vscode.ThemeColor('disabledForeground')),
};

export class ProgressTreeProvider extends Disposable implements vscode.TreeDataProvider<ProgressNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<ProgressNode | ProgressNode[] | undefined | void>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly avtimeNodes: AvtimeNodes | undefined;

  constructor(private readonly model: SweepModel, private readonly avtime?: AvtimeModel) {
    super();
    this._register(model.onDidChangeData(() => this._onDidChangeTreeData.fire()));
    if (avtime) {
      const nodes = (this.avtimeNodes = new AvtimeNodes(avtime));
      this._register(
        avtime.onDidChangeRuns((d) => {
          // A run appeared or went: the group (or, for the first run or the last, the roots). Else just the runs.
          if (d.setChanged) this._onDidChangeTreeData.fire(avtime.runs.length && this.hadAvtimeRoot ? nodes.group : undefined);
          else this._onDidChangeTreeData.fire(nodes.changedNodes(d.changed));
        }),
      );
    }
  }

  private hadAvtimeRoot = false;

  getParent(node: ProgressNode): ProgressNode | undefined {
    if (isAvtimeNode(node)) return this.avtimeNodes?.parent(node);
    if (node.kind === 'server') {
      const servers = this.model.current?.servers;
      return servers ? { kind: 'servers', servers } : undefined;
    }
    if (node.kind === 'cell') {
      const bench = this.model.current?.benchmarks.find((b) => b.benchmark === node.cell.benchmark);
      return bench ? this.roots().find((r) => r.kind === 'benchmark' && r.bench.benchmark === bench.benchmark) : undefined;
    }
    return undefined;
  }

  getChildren(node?: ProgressNode): ProgressNode[] {
    if (!node) {
      const roots = this.roots();
      this.hadAvtimeRoot = !!this.avtime?.runs.length;
      if (this.avtimeNodes && this.hadAvtimeRoot) roots.push(this.avtimeNodes.group);
      return roots;
    }
    if (isAvtimeNode(node)) return this.avtimeNodes?.children(node) ?? [];
    if (node.kind === 'servers') return node.servers.map((server) => ({ kind: 'server', server }));
    if (node.kind === 'benchmark') return node.bench.cells.map((cell) => ({ kind: 'cell', cell, live: node.live }));
    return [];
  }

  private roots(): ProgressNode[] {
    const view = this.model.current;
    const out: ProgressNode[] = [];
    if (this.model.message) out.push({ kind: 'message', text: this.model.message });
    if (!view) {
      if (!this.model.message) out.push({ kind: 'message', text: 'Reading progress…' });
      return out;
    }
    for (const text of view.stopLines) out.push({ kind: 'message', text });
    if (view.servers.length) out.push({ kind: 'servers', servers: view.servers });
    // The worker gives one ETA for the run; a benchmark's share is by the tokens it has left (progressData).
    for (const bench of view.benchmarks) out.push({ kind: 'benchmark', bench, live: view.live, etaSeconds: benchmarkEtaSeconds(view, bench) });
    if (!view.benchmarks.length) out.push({ kind: 'message', text: 'No benchmark × condition to run.' });
    return out;
  }

  getTreeItem(node: ProgressNode): vscode.TreeItem {
    if (isAvtimeNode(node)) return avtimeItem(this.avtime!, node);
    switch (node.kind) {
      case 'message': {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
      case 'servers': {
        const up = node.servers.filter((s) => s.state === 'up').length;
        const item = new vscode.TreeItem('Servers', vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${up}/${node.servers.length} up`;
        item.iconPath = new vscode.ThemeIcon('server-environment');
        item.id = 'servers';
        return item;
      }
      case 'server':
        return serverItem(node.server);
      case 'benchmark':
        return benchmarkItem(node.bench, node.live, node.etaSeconds);
      case 'cell':
        return cellItem(node.cell, node.live);
    }
  }
}

function serverItem(s: ServerStatus): vscode.TreeItem {
  const item = new vscode.TreeItem(`GPU ${s.index}`);
  const load = s.running !== null || s.waiting !== null ? ` · ${s.running ?? '?'} running, ${s.waiting ?? '?'} waiting` : '';
  item.description = `${s.state}${load}${s.restarts ? ` · ${s.restarts} restart(s)` : ''}`;
  item.tooltip = `${s.endpoint}\n${s.message ?? ''}`.trim();
  item.iconPath = SERVER_ICONS[s.state];
  item.id = `server:${s.index}`;
  item.accessibilityInformation = { label: `GPU ${s.index} server ${item.description}` };
  return item;
}

function benchmarkItem(b: BenchmarkView, live: boolean, etaSeconds: number | null): vscode.TreeItem {
  const pct = percent(b.finished, b.total);
  const item = new vscode.TreeItem(b.benchmark, vscode.TreeItemCollapsibleState.Collapsed);
  const failed = b.failed ? ` · ${b.failed} failed` : '';
  const eta = etaText(etaSeconds);
  item.description = `${pct}% · ${b.finished}/${b.total}${failed}${eta ? ` · ${eta}` : ''}`;
  const allDone = b.cells.every((c) => c.todo === 0);
  const state: CellState = b.failed ? 'failed' : allDone ? 'done' : live && b.finished > 0 ? 'running' : 'todo';
  item.iconPath = CELL_ICONS[state];
  item.id = `bench:${b.benchmark}`;
  item.contextValue = 'benchmark';
  // Screen readers (and the e2e test) read this label; it says the state in words.
  const todo = b.cells.reduce((x, c) => x + c.todo, 0);
  item.accessibilityInformation = { label: `${b.benchmark}: ${state}, ${pct}%, ${b.finished} of ${b.total} finished, ${todo} todo, ${b.failed} failed` };
  return item;
}

function cellItem(c: CellView, live: boolean): vscode.TreeItem {
  const state = cellState(c, live);
  const fin = finishedOf(c);
  const pct = percent(fin, c.total);
  const item = new vscode.TreeItem(c.condition);
  const parts = [`${pct}%`, `${c.done} done`];
  if (c.todo) parts.push(`${c.todo} todo`);
  if (c.na) parts.push(`${c.na} NA`);
  if (c.reuse) parts.push(`${c.reuse} reuse`);
  if (c.failed) parts.push(`${c.failed} failed`);
  item.description = parts.join(' · ');
  const md = new vscode.MarkdownString(undefined, false);
  md.appendText(`${c.benchmark} × ${c.condition}\n\n`);
  md.appendText(`done ${c.done} · todo ${c.todo} · NA ${c.na} · reuse ${c.reuse} · failed ${c.failed} · total ${c.total}`);
  item.tooltip = md;
  item.iconPath = CELL_ICONS[state];
  item.id = `cell:${c.benchmark}:${c.condition}`;
  item.contextValue = c.failed ? 'cell-failed' : 'cell';
  item.accessibilityInformation = { label: `${c.benchmark} × ${c.condition}: ${state}, ${pct}%, ${c.done} done, ${c.todo} todo, ${c.na} NA, ${c.reuse} reuse, ${c.failed} failed` };
  return item;
}

export function etaText(seconds: number | null): string {
  const t = formatEta(seconds);
  return t ? `ETA ${t}` : '';
}
