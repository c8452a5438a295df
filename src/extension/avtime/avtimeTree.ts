// The AVTime part of the progress tree: a group node, one node per run (kept as the same object while the run
// exists, so the tree can refresh just that node), its stages, the shards under infer and the passes under judge.
// Text comes from avtimeTreeData.ts; this file only makes TreeItems.
import * as vscode from 'vscode';
import type { AvtimePassView, AvtimeRunView, AvtimeShardView, AvtimeStageView, AvtimeStepState } from '../../core/protocols/avtime/progress';
import { passText, runText, shardText, stageText, type NodeText } from './avtimeTreeData';
import type { AvtimeModel } from './avtimeModel';

export interface AvtimeGroupNode { kind: 'avtimeGroup' }
export interface AvtimeRunNode { kind: 'avtimeRun'; root: string; run: AvtimeRunView }
export interface AvtimeStageNode { kind: 'avtimeStage'; parent: AvtimeRunNode; stage: AvtimeStageView }
export interface AvtimeShardNode { kind: 'avtimeShard'; parent: AvtimeStageNode; shard: AvtimeShardView }
export interface AvtimePassNode { kind: 'avtimePass'; parent: AvtimeStageNode; pass: AvtimePassView }
export type AvtimeNode = AvtimeGroupNode | AvtimeRunNode | AvtimeStageNode | AvtimeShardNode | AvtimePassNode;

const ICONS: Record<AvtimeStepState, vscode.ThemeIcon> = {
  done: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  running: new vscode.ThemeIcon('sync~spin'),
  todo: new vscode.ThemeIcon('circle-large-outline'),
  skipped: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  stopped: new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('list.warningForeground')),
};

/** Node objects that outlive a refresh: the group and one per run root. */
export class AvtimeNodes {
  readonly group: AvtimeGroupNode = { kind: 'avtimeGroup' };
  private readonly runs = new Map<string, AvtimeRunNode>();

  constructor(private readonly model: AvtimeModel) {}

  /** The run nodes, updated in place from the model. */
  runNodes(): AvtimeRunNode[] {
    const views = this.model.runs;
    for (const root of [...this.runs.keys()]) if (!views.some((v) => v.outputRoot === root)) this.runs.delete(root);
    return views.map((v) => this.nodeFor(v));
  }

  /** The node of a run, its view updated (the same object every time, so firing it refreshes it). */
  nodeFor(v: AvtimeRunView): AvtimeRunNode {
    let n = this.runs.get(v.outputRoot);
    if (!n) {
      n = { kind: 'avtimeRun', root: v.outputRoot, run: v };
      this.runs.set(v.outputRoot, n);
    }
    n.run = v;
    return n;
  }

  /** The nodes to refresh for changed runs (their views updated first). */
  changedNodes(roots: string[]): AvtimeRunNode[] {
    const out: AvtimeRunNode[] = [];
    for (const r of roots) {
      const v = this.model.get(r);
      if (v) out.push(this.nodeFor(v));
    }
    return out;
  }

  children(node: AvtimeNode): AvtimeNode[] {
    switch (node.kind) {
      case 'avtimeGroup':
        return this.runNodes();
      case 'avtimeRun':
        return node.run.stages.map((stage) => ({ kind: 'avtimeStage', parent: node, stage }));
      case 'avtimeStage':
        if (node.stage.name === 'infer') return node.parent.run.shards.map((shard) => ({ kind: 'avtimeShard', parent: node, shard }));
        if (node.stage.name === 'judge') return node.parent.run.passes.map((pass) => ({ kind: 'avtimePass', parent: node, pass }));
        return [];
      default:
        return [];
    }
  }

  parent(node: AvtimeNode): AvtimeNode | undefined {
    switch (node.kind) {
      case 'avtimeGroup':
        return undefined;
      case 'avtimeRun':
        return this.group;
      default:
        return node.parent;
    }
  }

  item(node: AvtimeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'avtimeGroup': {
        const n = this.model.runs.length;
        const item = new vscode.TreeItem('AVTime-Bench', vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${n} run${n === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon('pulse');
        item.id = 'avtime';
        item.accessibilityInformation = { label: `AVTime-Bench: ${n} run(s)` };
        return item;
      }
      case 'avtimeRun': {
        const item = make(runText(node.run), vscode.TreeItemCollapsibleState.Expanded, `avtime:${node.root}`);
        item.contextValue = 'avtimeRun';
        item.tooltip = `${node.run.outputRoot}${node.run.summary ? `\n${node.run.summary}` : ''}`;
        return item;
      }
      case 'avtimeStage': {
        const hasKids = (node.stage.name === 'infer' && node.parent.run.shards.length > 0) || (node.stage.name === 'judge' && node.parent.run.passes.length > 0);
        return make(stageText(node.parent.run.runId, node.stage), hasKids ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.root}:stage:${node.stage.name}`);
      }
      case 'avtimeShard':
        return make(shardText(node.parent.parent.run.runId, node.shard), vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.parent.root}:shard:${node.shard.shard}`);
      case 'avtimePass':
        return make(passText(node.parent.parent.run.runId, node.pass), vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.parent.root}:pass:${node.pass.pass}`);
    }
  }
}

function make(t: NodeText, collapsible: vscode.TreeItemCollapsibleState, id: string): vscode.TreeItem {
  const item = new vscode.TreeItem(t.label, collapsible);
  item.description = t.description;
  item.iconPath = ICONS[t.state];
  item.id = id;
  // Screen readers (and the e2e test) read this label; it says the state and counts in words.
  item.accessibilityInformation = { label: t.aria };
  return item;
}

export function isAvtimeNode(n: { kind: string }): n is AvtimeNode {
  return n.kind.startsWith('avtime');
}
