// Failures summary: count, per kind, and per benchmark × condition × kind with example item ids;
// a benchmark × condition with hundreds of failures is diagnosed as a likely server restart,
// with the matching lines of logs/vllm_gpu*.log.
import type { FailureRecord } from '../package/schemas';
import type { FailureGroup, LogLine } from './schema';

export const DIAGNOSIS_THRESHOLD = 100;
const SERVER_KINDS: ReadonlySet<string> = new Set(['request', 'server_down']);
const EXAMPLES = 5;

export function groupFailures(records: readonly FailureRecord[]): { byKind: Record<string, number>; groups: FailureGroup[] } {
  const byKind: Record<string, number> = {};
  const groups = new Map<string, FailureGroup>();
  for (const f of records) {
    byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
    const key = `${f.benchmark}\0${f.condition}\0${f.kind}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { benchmark: f.benchmark, condition: f.condition, kind: f.kind, count: 0, exampleItemIds: [], exampleMessage: f.message }));
    g.count++;
    if (g.exampleItemIds.length < EXAMPLES && !g.exampleItemIds.includes(f.item_id)) g.exampleItemIds.push(f.item_id);
  }
  const sorted = [...groups.values()].sort(
    (a, b) => b.count - a.count || a.benchmark.localeCompare(b.benchmark) || a.condition.localeCompare(b.condition) || a.kind.localeCompare(b.kind),
  );
  return { byKind, groups: sorted };
}

export function diagnose(groups: readonly FailureGroup[], serverLines: readonly LogLine[], threshold = DIAGNOSIS_THRESHOLD) {
  const perCell = new Map<string, { benchmark: string; condition: string; failures: number; kinds: Map<string, number> }>();
  for (const g of groups) {
    // Only what a dying server causes: data problems (no_video, bad_meta), decode errors and
    // predicted context refusals are not a restart's doing.
    if (!SERVER_KINDS.has(g.kind)) continue;
    const key = `${g.benchmark}\0${g.condition}`;
    let c = perCell.get(key);
    if (!c) perCell.set(key, (c = { benchmark: g.benchmark, condition: g.condition, failures: 0, kinds: new Map() }));
    c.failures += g.count;
    c.kinds.set(g.kind, g.count);
  }
  const oom = serverLines.filter((l) => /out of memory|OutOfMemoryError|\bOOM\b/i.test(l.text));
  return [...perCell.values()]
    .filter((c) => c.failures >= threshold)
    .map((c) => {
      const kinds = [...c.kinds.entries()].map(([k, n]) => `${n} ${k}`).join(', ');
      const where = oom.length
        ? `logs show out-of-memory (${oom.length} line(s)): lower MAX_SEQS (or GPU_UTIL) and run again — the runner resumes`
        : serverLines.length
          ? `no OOM line, but the server logs show errors (below); check them, then run again — the runner resumes`
          : 'no OOM or error line found in logs/vllm_gpu*.log; check logs/runner.log around these failures';
      return {
        benchmark: c.benchmark,
        condition: c.condition,
        failures: c.failures,
        message: `${c.failures} failures (${kinds}) for ${c.benchmark} × ${c.condition} point at a vLLM server restart; ${where}`,
        logLines: (oom.length ? oom : serverLines).slice(0, 20),
      };
    });
}
