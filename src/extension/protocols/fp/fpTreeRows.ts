// The Frames × Pixels section of the progress tree as rows (no vscode: tested under plain mocha): the model's
// messages, why the run stopped, the servers, then benchmark → condition. The texts and ids are the tree's
// since it began (the e2e and screen readers read the accessibility labels).
import type { ServerStatus } from '../../../core/runner/serverStatus';
import { bottleneckLabel } from '../../../core/runner/bottleneck';
import { FP_BOTTLENECK_WORDS } from '../../../core/protocols/fp/sweep/fpBottleneckWords';
import {
  benchmarkEtaSeconds,
  cellState,
  finishedOf,
  formatEta,
  percent,
  type BenchmarkView,
  type CellState,
  type CellView,
  type ProgressView,
} from '../../../core/protocols/fp/progress';
import type { ProtocolSection, TreeRow } from '../../progressNodes';

export interface FpTreeInput {
  /** Why there is nothing to show, or a problem (no package, the dry run failed). */
  message: string | undefined;
  view: ProgressView | undefined;
}

export function etaText(seconds: number | null): string {
  const t = formatEta(seconds);
  return t ? `ETA ${t}` : '';
}

const leaf = (r: Omit<TreeRow, 'children' | 'collapsible'>): TreeRow => ({ ...r, collapsible: 'none', children: [] });

export function fpRows({ message, view }: FpTreeInput): TreeRow[] {
  const out: TreeRow[] = [];
  const msg = (text: string) => out.push(leaf({ id: `fp:message:${out.length}`, label: text, icon: 'info' }));
  if (message) msg(message);
  if (!view) {
    if (!message) msg('Reading progress…');
    return out;
  }
  for (const text of view.stopLines) msg(text);
  if (view.servers.length) out.push(serversRow(view.servers));
  // The worker gives one ETA for the run; a benchmark's share is by the tokens it has left (progress.ts).
  for (const bench of view.benchmarks) out.push(benchmarkRow(bench, view.live, benchmarkEtaSeconds(view, bench)));
  if (!view.benchmarks.length) msg('No benchmark × condition to run.');
  return out;
}

/**
 * The section under "Frames × Pixels": the one package the extension follows. The group's text stays put while
 * the run moves (the view's title carries the percent), so a moving cell refreshes its benchmark, not the group.
 */
export function fpSection(input: FpTreeInput, protocol: ProtocolSection['protocol']): ProtocolSection {
  return { protocol, runs: input.view ? 1 : 0, rows: fpRows(input) };
}

function serversRow(servers: ServerStatus[]): TreeRow {
  const up = servers.filter((s) => s.state === 'up').length;
  return {
    id: 'servers',
    label: 'Servers',
    description: `${up}/${servers.length} up`,
    icon: 'servers',
    collapsible: 'expanded',
    children: servers.map(serverRow),
  };
}

function serverRow(s: ServerStatus): TreeRow {
  const load = s.running !== null || s.waiting !== null ? ` · ${s.running ?? '?'} running, ${s.waiting ?? '?'} waiting` : '';
  const b = s.bottleneck && s.bottleneck.kind !== 'unknown' ? s.bottleneck : null;
  const description = `${s.state}${load}${s.restarts ? ` · ${s.restarts} restart(s)` : ''}${b ? ` · ${bottleneckLabel(b.kind, FP_BOTTLENECK_WORDS)}` : ''}`;
  return leaf({
    id: `server:${s.index}`,
    label: `GPU ${s.index}`,
    description,
    tooltip: `${s.endpoint}\n${s.message ?? ''}${b ? `\n${b.reason}\nturn: ${b.knob}` : ''}`.trim(),
    icon: `server-${s.state}`,
    aria: `GPU ${s.index} server ${description}`,
  });
}

function benchmarkRow(b: BenchmarkView, live: boolean, etaSeconds: number | null): TreeRow {
  const pct = percent(b.finished, b.total);
  const failed = `${b.failed ? ` · ${b.failed} failed` : ''}${b.noVideo ? ` · ${b.noVideo} no video` : ''}`;
  const eta = etaText(etaSeconds);
  const allDone = b.cells.every((c) => c.todo === 0);
  const state: CellState = b.failed ? 'failed' : allDone ? 'done' : live && b.finished > 0 ? 'running' : 'todo';
  const todo = b.cells.reduce((x, c) => x + c.todo, 0);
  return {
    id: `bench:${b.benchmark}`,
    label: b.benchmark,
    description: `${pct}% · ${b.finished}/${b.total}${failed}${eta ? ` · ${eta}` : ''}`,
    icon: state,
    collapsible: 'collapsed',
    contextValue: 'benchmark',
    aria: `${b.benchmark}: ${state}, ${pct}%, ${b.finished} of ${b.total} finished, ${todo} todo, ${b.failed} failed, ${b.noVideo} no video`,
    children: b.cells.map((c) => cellRow(c, live)),
  };
}

function cellRow(c: CellView, live: boolean): TreeRow {
  const state = cellState(c, live);
  const pct = percent(finishedOf(c), c.total);
  const parts = [`${pct}%`, `${c.done} done`];
  if (c.todo) parts.push(`${c.todo} todo`);
  if (c.na) parts.push(`${c.na} NA`);
  if (c.reuse) parts.push(`${c.reuse} reuse`);
  if (c.failed) parts.push(`${c.failed} failed`);
  // Expected, not an alarm: the seed logs items with no video in the package as failures for the origin side.
  if (c.noVideo) parts.push(`${c.noVideo} no video`);
  return leaf({
    id: `cell:${c.benchmark}:${c.condition}`,
    label: c.condition,
    description: parts.join(' · '),
    tooltip:
      `${c.benchmark} × ${c.condition}\n\ndone ${c.done} · todo ${c.todo} · NA ${c.na} · reuse ${c.reuse} · failed ${c.failed}` +
      ` · no video ${c.noVideo} (expected: not in the package) · total ${c.total}`,
    icon: state,
    contextValue: c.failed ? 'cell-failed' : 'cell',
    aria:
      `${c.benchmark} × ${c.condition}: ${state}, ${pct}%, ${c.done} done, ${c.todo} todo, ${c.na} NA, ${c.reuse} reuse, ` +
      `${c.failed} failed, ${c.noVideo} no video`,
    data: c,
  });
}
