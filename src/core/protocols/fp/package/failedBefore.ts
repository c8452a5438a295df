// "Failed before", one rule in one place. A unit still to write (a request, or a reuse row) whose key
// has a line in failures.jsonl failed in an earlier run; it is asked again by the next run. Until then
// every view (the dry run, the live worker's cells, the progress tree) shows it as failed, not as
// untouched work. Pure: the live worker, the dry run and the extension all call these.
import { unitKey } from './unitKey';

/** What the rule needs of a unit. */
export interface FailedBeforeUnit {
  benchmark: string;
  item: { item_id: string };
  condition: string;
  status: string;
}

/** Still to write (todo or reuse) and with a failure line: it failed before. */
export function isFailedBefore(u: FailedBeforeUnit, failedKeys: ReadonlySet<string>): boolean {
  return (u.status === 'todo' || u.status === 'reuse') && failedKeys.size > 0 && failedKeys.has(unitKey(u.benchmark, u.item.item_id, u.condition));
}

/**
 * How a view counts a cell: its failed-before units move from todo to failed. `failedBefore` is a
 * subset of `todo`; a count that says more (rows written since it was taken) moves at most `todo`.
 */
export function showFailedBefore(c: { todo: number; failed: number; failedBefore: number }): { todo: number; failed: number } {
  const moved = Math.max(0, Math.min(c.failedBefore, c.todo));
  return { todo: c.todo - moved, failed: c.failed + moved };
}
