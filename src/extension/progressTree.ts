// The "Progress" tree: one group per run type of the registry (core/protocols/registry.ts) that has runs. The rows
// come from the sections (each protocol's view: fpTreeRows.ts, avtime/avtimeTreeRows.ts; a protocol without one
// shows its snapshots' generic rows), the node objects and what changed from progressNodes.ts; this file only maps
// rows to TreeItems. A change fires the nodes that changed, not the whole tree; getParent works for every node.
import * as vscode from 'vscode';
import { Disposable } from './lifecycle';
import { NodeStore, type RowIcon, type TreeNode, type TreeRow } from './progressNodes';

const ICONS: Record<RowIcon, vscode.ThemeIcon> = {
  done: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  running: new vscode.ThemeIcon('sync~spin'),
  waiting: new vscode.ThemeIcon('watch', new vscode.ThemeColor('list.warningForeground')),
  todo: new vscode.ThemeIcon('circle-large-outline'),
  na: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  skipped: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  stopped: new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('list.warningForeground')),
  info: new vscode.ThemeIcon('info'),
  group: new vscode.ThemeIcon('pulse'),
  servers: new vscode.ThemeIcon('server-environment'),
  'server-up': new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed')),
  'server-starting': new vscode.ThemeIcon('loading~spin'),
  'server-restarting': new vscode.ThemeIcon('debug-restart', new vscode.ThemeColor('list.warningForeground')),
  'server-down': new vscode.ThemeIcon('vm-outline', new vscode.ThemeColor('disabledForeground')),
};

const COLLAPSIBLE: Record<TreeRow['collapsible'], vscode.TreeItemCollapsibleState> = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
};

export class ProgressTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<TreeNode | TreeNode[] | undefined | void>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly store = new NodeStore();

  /** `rows` gives the whole tree's rows; call `changed()` when any section's data changed. */
  constructor(private readonly rows: () => TreeRow[]) {
    super();
    this.store.update(rows());
  }

  changed(): void {
    const c = this.store.update(this.rows());
    if (c.all) this._onDidChangeTreeData.fire();
    else if (c.nodes.length) this._onDidChangeTreeData.fire(c.nodes);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node ? node.children : this.store.roots;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const r = node.row;
    const item = new vscode.TreeItem(r.label, COLLAPSIBLE[r.collapsible]);
    item.id = r.id;
    item.description = r.description;
    item.tooltip = r.tooltip;
    item.iconPath = ICONS[r.icon];
    item.contextValue = r.contextValue;
    if (r.aria) item.accessibilityInformation = { label: r.aria };
    return item;
  }
}
