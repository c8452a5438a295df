// The status as text: one line for the whole run plus a table of the benchmark × condition cells
// that still have work or failures (a full sweep has ~1,100 cells; finished ones are counted, not listed).
import { stopReasonLines } from '../../../runner/stopReason';
import { hostCpuText } from '../../../runner/hostCpuStatus';
import type { WorkerStatus } from './statusSchema';

function dur(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '?';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}

export function statusLine(s: WorkerStatus): string {
  const t = s.totals;
  const pct = t.total > 0 ? ((100 * t.done) / t.total).toFixed(1) : '0.0';
  const before = t.failedBefore ? ` (${t.failedBefore} failed before)` : '';
  return (
    `${s.state}${s.shard ? ` (shard ${s.shard})` : ''}: ${t.done}/${t.total} rows (${pct}%), ` +
    `${t.todo} to do${before}, ${t.inFlight} in flight, ${t.failed} failed, ` +
    `+${t.addedThisRun} this run, ${s.throughput.requestsPerMin.toFixed(1)} req/min, ETA ${dur(s.etaSeconds)}`
  );
}

export function formatStatus(s: WorkerStatus, alive: boolean): string {
  const lines = [
    `worker pid ${s.pid} (${alive ? 'alive' : 'not running'}), run ${s.runId}, ${s.mode}, started ${s.startedAt}, updated ${s.updatedAt}`,
    statusLine(s),
  ];
  if (s.message) lines.push(s.message);
  if (s.stopReason) lines.push(...stopReasonLines(s.stopReason));
  for (const sv of s.servers) {
    lines.push(
      `  server ${sv.index} ${sv.endpoint}: ${sv.state}${sv.running !== null ? `, running ${sv.running}, waiting ${sv.waiting ?? '?'}` : ''}` +
        `${sv.restarts ? `, ${sv.restarts} restart(s)` : ''}${sv.message ? ` (${sv.message})` : ''}`,
    );
    if (sv.bottleneck && sv.bottleneck.kind !== 'unknown') lines.push(`    ${sv.bottleneck.reason}; turn: ${sv.bottleneck.knob}`);
  }
  if (s.hostCpu) lines.push(hostCpuText(s.hostCpu));
  if (s.bottleneck) lines.push(s.bottleneck.line);
  const open = s.cells.filter((c) => c.todo > 0 || c.failed > 0 || c.noVideo > 0);
  if (open.length) {
    const w = Math.max(9, ...open.map((c) => c.benchmark.length));
    const cw = Math.max(9, ...open.map((c) => c.condition.length));
    lines.push(
      `  ${'benchmark'.padEnd(w)}  ${'condition'.padEnd(cw)}  ${'done'.padStart(5)}/${'total'.padEnd(5)} ` +
        `${'todo'.padStart(5)} ${'NA'.padStart(4)} ${'reuse'.padStart(5)} ${'failed'.padStart(6)} ${'no_video'.padStart(8)}`,
    );
    for (const c of open) {
      lines.push(
        `  ${c.benchmark.padEnd(w)}  ${c.condition.padEnd(cw)}  ${String(c.done).padStart(5)}/${String(c.total).padEnd(5)} ` +
          `${String(c.todo).padStart(5)} ${String(c.na).padStart(4)} ${String(c.reuse).padStart(5)} ` +
          `${String(c.failed).padStart(6)} ${String(c.noVideo).padStart(8)}`,
      );
    }
  }
  const finished = s.cells.length - open.length;
  if (finished) lines.push(`  ${finished} benchmark × condition cell(s) complete`);
  if (s.summary) lines.push(s.summary);
  return lines.join('\n');
}
