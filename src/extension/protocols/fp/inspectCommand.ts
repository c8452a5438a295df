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
  const given = node?.row?.contextValue?.startsWith('cell') ? (node.row.data as CellView) : undefined;
  const cells = given ? [] : (host.model.current?.benchmarks.flatMap((b) => b.cells) ?? []);
  if (!given && !cells.length) {
    void vscode.window.showInformationMessage('fpsweep: no benchmark × condition to inspect (is a run package open?)');
    return;
  }
  const pkg = host.model.packageDir;
  if (!pkg) throw new Error('no run package: open the package folder or set fpsweep.packagePath');
  const chosen = await pickItem(pkg, given, cells);
  if (chosen) await host.inspect({ benchmark: chosen.cell.benchmark, itemId: chosen.itemId, conditions: [chosen.cell.condition] });
}

type Cell = Pick<CellView, 'benchmark' | 'condition' | 'done'>;
type Row = vscode.QuickPickItem & { cell?: Cell; itemId?: string };

/**
 * One quick pick for both steps (a benchmark × condition, then its item): the second step replaces the first's rows
 * in the same widget. Two quick picks in a row hand the focus back to the editor between them, and an inspector's
 * webview takes it asynchronously, closing the second pick under the user (seen in the e2e once the item list was
 * read in the host, fast enough to open before that focus came back).
 */
function pickItem(pkg: string, given: Cell | undefined, cells: readonly Cell[]): Promise<{ cell: Cell; itemId: string } | undefined> {
  const qp = vscode.window.createQuickPick<Row>();
  qp.matchOnDetail = true;
  let cell = given;
  const showItems = async (c: Cell) => {
    qp.title = `fpsweep: Inspect an item of ${c.benchmark} × ${c.condition}`;
    qp.value = '';
    qp.items = [];
    qp.busy = true;
    // Read here, like the item itself (inspectorSource.ts): the benchmark's CSV lines, its items, its failure lines.
    const list = await listItems(pkg, c.benchmark, c.condition);
    qp.items = list.items.map((i) => ({
      label: i.item_id,
      description: i.state === 'ok' || i.state === 'reuse' ? `${i.pred || '(no letter)'} ${i.correct ? '✓' : '✗'} · answer ${i.answer}` : i.state,
      detail: i.question.slice(0, 200),
      itemId: i.item_id,
    }));
    qp.busy = false;
  };
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: { cell: Cell; itemId: string } | undefined) => {
      if (done) return;
      done = true;
      resolve(v);
      qp.dispose();
    };
    const fail = (e: unknown) => {
      void vscode.window.showErrorMessage(`fpsweep: cannot list the items: ${e instanceof Error ? e.message : String(e)}`);
      finish(undefined);
    };
    qp.onDidAccept(() => {
      const row = qp.selectedItems[0];
      if (!row || qp.busy) return;
      if (row.cell) {
        cell = row.cell;
        showItems(cell).catch(fail);
      } else if (row.itemId && cell) finish({ cell, itemId: row.itemId });
    });
    qp.onDidHide(() => finish(undefined));
    if (cell) showItems(cell).catch(fail);
    else {
      qp.title = 'fpsweep: Inspect an item of…';
      qp.items = cells.map((c) => ({ label: `${c.benchmark} × ${c.condition}`, description: `${c.done} done`, cell: c }));
    }
    qp.show();
  });
}
