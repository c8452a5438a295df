// Lays out each kind of report. Until a kind has its own layout, its data is shown as nested tables.
import type { CellFocus, ReportKind } from '../../src/extension/reports/protocol';
import { el, renderValue } from './dom';

export function renderKind(kind: ReportKind, report: unknown, focus?: CellFocus): Node {
  const r = report as Record<string, unknown>;
  const part = r && typeof r === 'object' && kind in r ? r[kind] : report;
  return el('section', { 'data-focus': focus ? `${focus.benchmark} ${focus.condition}` : undefined }, renderValue(part));
}
