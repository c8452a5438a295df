// Full-run time from the pilot. Method (stated in the report):
//   request-seconds = Σ over conditions of todo_c × (pilot infer_s / answered items)_c, todo_c from
//   the dry run over every benchmark; serial = request-seconds / servers (one request at a time
//   per server: an upper bound); the pilot's concurrency = Σ pilot infer_s / (pilot wall × servers)
//   (requests overlap on a server); estimate = serial / concurrency.
// Conditions with todo but no pilot timing are listed and left out (the estimate is then low).
import type { TimingRow } from './schema';
import type { Report } from './schema';

export interface TodoRow {
  benchmark: string;
  condition: string;
  todo: number;
}

export const EXTRAPOLATION_METHOD =
  'per condition: todo (dry run over every benchmark) × pilot infer_s per answered item; ' +
  'summed, divided by the number of servers (serial = one request at a time per server, an upper bound); ' +
  "then divided by the pilot's concurrency, Σ infer_s / (wall time × servers), the requests a server had in flight on average";

export function extrapolate(
  timing: readonly TimingRow[],
  todoRows: readonly TodoRow[] | null,
  todoError: string | null,
  servers: number | null,
  serversSource: string,
  pilotInferSeconds: number,
  pilotWallSeconds: number | null,
): Report['extrapolation'] {
  const base = { method: EXTRAPOLATION_METHOD, servers, serversSource };
  if (!todoRows) {
    return {
      ...base,
      available: false,
      reason: todoError ?? 'no dry run',
      rows: [],
      todoTotal: 0,
      untimedConditions: [],
      serialSeconds: null,
      pilotConcurrency: null,
      estimatedSeconds: null,
    };
  }
  const todo = new Map<string, number>();
  for (const r of todoRows) todo.set(r.condition, (todo.get(r.condition) ?? 0) + r.todo);
  const perItem = new Map(timing.filter((t) => t.infer > 0).map((t) => [t.condition, t.infer_s / t.infer]));
  const rows = [...todo.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([condition, n]) => {
      const s = perItem.get(condition) ?? null;
      return { condition, todo: n, secondsPerItem: s, requestSeconds: s === null ? null : s * n };
    });
  const untimed = rows.filter((r) => r.todo > 0 && r.secondsPerItem === null).map((r) => r.condition);
  const requestSeconds = rows.reduce((a, r) => a + (r.requestSeconds ?? 0), 0);
  const n = servers ?? 1;
  const serialSeconds = requestSeconds / n;
  const pilotConcurrency = pilotWallSeconds && pilotWallSeconds > 0 && pilotInferSeconds > 0 ? pilotInferSeconds / (pilotWallSeconds * n) : null;
  const timedAny = rows.some((r) => r.secondsPerItem !== null);
  return {
    ...base,
    available: timedAny,
    reason: timedAny
      ? untimed.length
        ? `no pilot timing for ${untimed.join(', ')}: their todo is left out`
        : null
      : 'no pilot timing for any condition with todo',
    rows,
    todoTotal: rows.reduce((a, r) => a + r.todo, 0),
    untimedConditions: untimed,
    serialSeconds: timedAny ? serialSeconds : null,
    pilotConcurrency,
    estimatedSeconds: timedAny && pilotConcurrency ? serialSeconds / pilotConcurrency : null,
  };
}
