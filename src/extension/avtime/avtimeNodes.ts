// The AVTime part of the progress tree as a structure (no vscode: tested under plain mocha): a group node, one
// node per run — the same object while the run exists, so the tree can refresh just that node — its stages,
// the shards under infer and the passes under judge, each child holding its parent (getParent, reveal).
import type { AvtimePassView, AvtimeRunView, AvtimeShardView, AvtimeStageView } from '../../core/protocols/avtime/progress';

/** What the nodes are made from (the AVTime model). */
export interface AvtimeRunsSource {
  readonly runs: AvtimeRunView[];
  get(root: string): AvtimeRunView | undefined;
}

export interface AvtimeGroupNode { kind: 'avtimeGroup' }
export interface AvtimeRunNode { kind: 'avtimeRun'; root: string; run: AvtimeRunView }
export interface AvtimeStageNode { kind: 'avtimeStage'; parent: AvtimeRunNode; stage: AvtimeStageView }
export interface AvtimeShardNode { kind: 'avtimeShard'; parent: AvtimeStageNode; shard: AvtimeShardView }
export interface AvtimePassNode { kind: 'avtimePass'; parent: AvtimeStageNode; pass: AvtimePassView }
export type AvtimeNode = AvtimeGroupNode | AvtimeRunNode | AvtimeStageNode | AvtimeShardNode | AvtimePassNode;

/** Node objects that outlive a refresh: the group and one per run root. */
export class AvtimeNodes {
  readonly group: AvtimeGroupNode = { kind: 'avtimeGroup' };
  private readonly runs = new Map<string, AvtimeRunNode>();

  constructor(private readonly model: AvtimeRunsSource) {}

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
}

export function isAvtimeNode(n: { kind: string }): n is AvtimeNode {
  return n.kind.startsWith('avtime');
}
