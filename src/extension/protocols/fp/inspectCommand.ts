// "fpsweep: Inspect an item…": from a benchmark × condition row of the tree (its items to pick from, with their answer
// under that condition, read in the extension host), from the palette (a benchmark × condition first), or with a
// target (another view's link).
import * as vscode from 'vscode';
import type { CellView } from '../../../core/protocols/fp/progress';
import type { TreeNode } from '../../progressNodes';
import type { SweepModel } from './sweepModel';
import { listItems } from '../../../core/protocols/fp/inspect/listItems';

export interface InspectCommandHost {
  model: SweepModel;
  inspect(t: { benchmark: string; itemId: string; conditions: string[] }): Promise<void>;
}

/** A target given by another view or a test: `{benchmark, itemId, conditions?}`. */
function asTarget(arg: unknown): { benchmark: string; itemId: string; conditions: string[] } | undefined {
  const t = arg as { benchmark?: unknown; itemId?: unknown; conditions?: unknown } | undefined;
  if (typeof t?.benchmark !== 'string' || typeof t.itemId !== 'string') return undefined;
  const conditions = Array.isArray(t.conditions) ? t.conditions.filter((c): c is string => typeof c === 'string') : [];
  return { benchmark: t.benchmark, itemId: t.itemId, conditions };
}

export async function inspectItemCommand(host: InspectCommandHost, arg: unknown): Promise<void> {
  const target = asTarget(arg);
  if (target) return host.inspect(target);
  const node = arg as TreeNode | undefined;
  const cell = node?.row?.contextValue?.startsWith('cell') ? (node.row.data as CellView) : await pickCell(host.model);
  if (!cell) return;
  const pkg = host.model.packageDir;
  if (!pkg) throw new Error('no run package: open the package folder or set fpsweep.packagePath');
  // Read here, like the item itself (inspectorSource.ts): the benchmark's CSV lines, its items, its failure lines.
  const list = await listItems(pkg, cell.benchmark, cell.condition);
  const picks = list.items.map((i) => ({
    label: i.item_id,
    description: i.state === 'ok' || i.state === 'reuse' ? `${i.pred || '(no letter)'} ${i.correct ? '✓' : '✗'} · answer ${i.answer}` : i.state,
    detail: i.question.slice(0, 200),
    itemId: i.item_id,
  }));
  const pick = await vscode.window.showQuickPick(picks, { title: `fpsweep: Inspect an item of ${cell.benchmark} × ${cell.condition}`, matchOnDetail: true });
  if (pick) await host.inspect({ benchmark: cell.benchmark, itemId: pick.itemId, conditions: [cell.condition] });
}

async function pickCell(model: SweepModel): Promise<{ benchmark: string; condition: string } | undefined> {
  const cells = model.current?.benchmarks.flatMap((b) => b.cells) ?? [];
  if (!cells.length) {
    void vscode.window.showInformationMessage('fpsweep: no benchmark × condition to inspect (is a run package open?)');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    cells.map((c) => ({ label: `${c.benchmark} × ${c.condition}`, description: `${c.done} done`, cell: c })),
    { title: 'fpsweep: Inspect an item of…' },
  );
  return pick?.cell;
}
