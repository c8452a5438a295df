// The progress tree as data (no vscode: tested under plain mocha). Each run type's UI (protocols/registry.ts) with
// runs gives one group of rows; a NodeStore keeps one node object
// per row id for as long as the row exists, each holding its parent (getParent, reveal), and says after each read
// which nodes changed, so the tree fires those and not the whole tree (vscode-pull-request-github's
// prsTreeDataProvider fires the node that changed the same way).
import type { ServerState } from '../core/serving/serverState';
import type { AnyProtocol, ProgressState } from '../core/protocols/types';

export type RowIcon =
  | ProgressState
  | 'info'
  | 'group'
  | 'servers'
  /** A server's row: the one server-state type (core/serving/serverState.ts). */
  | `server-${ServerState}`;

/** One row of the tree, as the tree item shows it. `id` is unique in the whole tree. */
export interface TreeRow {
  id: string;
  label: string;
  description?: string;
  /** The accessibility label: the state and counts in words (screen readers, the e2e). */
  aria?: string;
  tooltip?: string;
  icon: RowIcon;
  /** How a row with children first shows (VS Code keeps what an id was first shown with). */
  collapsible: 'none' | 'collapsed' | 'expanded';
  contextValue?: string;
  /** The run root a row belongs to (commands on a run). */
  root?: string;
  /** The protocol view's own data for commands (an FP cell). Not compared: the row's text says what changed. */
  data?: unknown;
  children: TreeRow[];
}

/** What a protocol shows under its group. */
export interface ProtocolSection {
  protocol: Pick<AnyProtocol, 'id' | 'title'>;
  runs: number;
  rows: TreeRow[];
  /** Default: "N run(s)". */
  description?: string;
}

export function groupRow(s: ProtocolSection): TreeRow {
  const n = s.runs;
  return {
    id: `group:${s.protocol.id}`,
    label: s.protocol.title,
    description: s.description ?? `${n} run${n === 1 ? '' : 's'}`,
    aria: `${s.protocol.title}: ${n} run(s)`,
    icon: 'group',
    collapsible: 'expanded',
    children: s.rows,
  };
}

/** The tree's roots: one group per run type (in the registry's order) with something to show. */
export function treeRoots(sections: readonly ProtocolSection[]): TreeRow[] {
  return sections.filter((s) => s.rows.length).map(groupRow);
}

/** A node of the tree: the same object while its row id is in the tree. */
export interface TreeNode {
  readonly id: string;
  row: TreeRow;
  parent: TreeNode | undefined;
  children: TreeNode[];
}

/** What to fire: `all` (the roots changed) or the topmost nodes whose row or children changed. */
export interface TreeChange {
  all: boolean;
  nodes: TreeNode[];
}

function ownKey(r: TreeRow): string {
  const { children, data, ...own } = r;
  void data;
  return JSON.stringify([own, children.map((c) => c.id)]);
}

export class NodeStore {
  private nodes = new Map<string, TreeNode>();
  private keys = new Map<string, string>();
  private rootNodes: TreeNode[] = [];

  get roots(): TreeNode[] {
    return this.rootNodes;
  }

  get(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  /** Takes the tree's new rows; returns what changed since the last update (nothing: no nodes, not all). */
  update(rows: TreeRow[]): TreeChange {
    const seen = new Map<string, TreeNode>();
    const keys = new Map<string, string>();
    const changed: TreeNode[] = [];
    const visit = (r: TreeRow, parent: TreeNode | undefined): TreeNode => {
      if (seen.has(r.id)) throw new Error(`progress tree: row id '${r.id}' is used twice`);
      let n = this.nodes.get(r.id);
      const key = ownKey(r);
      // A row that moved to another parent is a new node (its old parent's refresh drops the old one).
      if (!n || n.parent?.id !== parent?.id) n = { id: r.id, row: r, parent, children: [] };
      else if (this.keys.get(r.id) !== key) changed.push(n);
      n.row = r;
      n.parent = parent;
      seen.set(r.id, n);
      keys.set(r.id, key);
      n.children = r.children.map((c) => visit(c, n));
      return n;
    };
    const roots = rows.map((r) => visit(r, undefined));
    const all = roots.length !== this.rootNodes.length || roots.some((n, i) => n !== this.rootNodes[i]);
    this.nodes = seen;
    this.keys = keys;
    this.rootNodes = roots;
    if (all) return { all: true, nodes: [] };
    // Refreshing a node refreshes its subtree: fire only the topmost changed ones.
    const fired = new Set(changed);
    const covered = (n: TreeNode) => {
      for (let p = n.parent; p; p = p.parent) if (fired.has(p)) return true;
      return false;
    };
    return { all: false, nodes: changed.filter((n) => !covered(n)) };
  }
}
