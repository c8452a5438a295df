// The AVTime part of the progress tree as TreeItems: the structure is avtimeNodes.ts, the text avtimeTreeData.ts.
import * as vscode from 'vscode';
import type { AvtimeStepState } from '../../core/protocols/avtime/progress';
import { passText, runText, shardText, stageText, type NodeText } from './avtimeTreeData';
import type { AvtimeNode, AvtimeRunsSource } from './avtimeNodes';

export { AvtimeNodes, isAvtimeNode, type AvtimeNode, type AvtimeRunNode } from './avtimeNodes';

const ICONS: Record<AvtimeStepState, vscode.ThemeIcon> = {
  done: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  running: new vscode.ThemeIcon('sync~spin'),
  todo: new vscode.ThemeIcon('circle-large-outline'),
  skipped: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  stopped: new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('list.warningForeground')),
};

export function avtimeItem(model: AvtimeRunsSource, node: AvtimeNode): vscode.TreeItem {
  switch (node.kind) {
    case 'avtimeGroup': {
      const n = model.runs.length;
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
      const scores = node.run.scores ? `\n${Object.entries(node.run.scores).map(([k, x]) => `${k} ${x.toFixed(4)}`).join('  ')}` : '';
      item.tooltip = `${node.run.outputRoot}${scores}${node.run.summary ? `\n${node.run.summary}` : ''}`;
      return item;
    }
    case 'avtimeStage': {
      // infer and judge are expandable from the start, even before their shards or passes exist: VS Code keeps the
      // state an id was first shown with, and an item first seen as a leaf would come back collapsed.
      const parent = node.stage.name === 'infer' || node.stage.name === 'judge';
      return make(stageText(node.parent.run.runId, node.stage), parent ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.root}:stage:${node.stage.name}`);
    }
    case 'avtimeShard':
      return make(shardText(node.parent.parent.run.runId, node.shard), vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.parent.root}:shard:${node.shard.shard}`);
    case 'avtimePass':
      return make(passText(node.parent.parent.run.runId, node.pass), vscode.TreeItemCollapsibleState.None, `avtime:${node.parent.parent.root}:pass:${node.pass.pass}`);
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

