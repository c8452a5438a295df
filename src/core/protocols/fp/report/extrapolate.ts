// Full-run time from the pilot, scaled on the resource that bounded it (runner/bottleneck.ts; the last run's
// verdicts in .fpsweep/status.json). Per condition, todo comes from the dry run over every benchmark, and each
// item's work is measured in the bottleneck's unit:
//  - GPU-bound: prompt tokens (pilot prompt_tokens / answered item). The rate is vLLM's prefilled tokens per
//    second of engine-busy time in the verdict's window (busy = share of scrapes with a request running × wall);
//    the estimate keeps every GPU that busy all run long.
//  - front-end-bound: prompt tokens too (the front end's work grows with the pixels, as the tokens do), per
//    second of the window's wall time (vLLM 0.11 exports no busy time for its API process).
//  - bound by our frames: our decode seconds per item; the pilot's wall time scaled by Σ todo × decode_s/item
//    over the pilot's Σ decode_s.
//  - bound by the client, or no verdict: request-seconds (infer_s per item) over the servers and over the
//    requests the pilot had in flight per server (Little's law on our own in-flight cap).
// Conditions with todo but no pilot timing are listed and left out (the estimate is then low).
import type { Bottleneck, BottleneckKind } from '../../../runner/bottleneck';
import type { Report, TimingRow } from './schema';

export interface TodoRow {
  benchmark: string;
  condition: string;
  todo: number;
}

export const UNIT: Record<BottleneckKind, string> = {
  gpu: 'prompt tokens',
  'front-end': 'prompt tokens',
  frames: 'decode seconds',
  client: 'request-seconds',
  unknown: 'request-seconds',
};

export const EXTRAPOLATION_METHODS: Record<BottleneckKind, string> = {
  gpu:
    'GPU-bound: per condition, todo × pilot prompt tokens per answered item; summed, divided by the servers and by the tokens ' +
    "vLLM prefilled per second of engine-busy time in the last run's window (a request running); every GPU kept that busy",
  'front-end':
    "front-end-bound: per condition, todo × pilot prompt tokens per answered item (vLLM's API process's work grows with the pixels, as the tokens do); " +
    "summed, divided by the servers and by the tokens each server took per second of the last run's window",
  frames: 'bound by our frames: per condition, todo × pilot decode_s per answered item; summed, over the pilot Σ decode_s, times the pilot wall time',
  client:
    'bound by the client: per condition, todo × pilot infer_s per answered item; summed, divided by the servers (serial: one request at a time ' +
    "per server) and by the pilot's concurrency, Σ infer_s / (wall time × servers), the requests a server had in flight on average",
  unknown:
    'no bottleneck verdict (no status from the last run): per condition, todo × pilot infer_s per answered item; summed, divided by the ' +
    "servers (serial: one request at a time per server) and by the pilot's concurrency, Σ infer_s / (wall time × servers)",
};

/** What the extrapolation reads of the last run's verdicts. */
export interface PilotBottleneck {
  kind: BottleneckKind;
  servers: readonly Bottleneck[];
}

function perItem(t: TimingRow, kind: BottleneckKind): number {
  if (kind === 'gpu' || kind === 'front-end') return t.prompt_tokens / t.infer;
  if (kind === 'frames') return t.decode_s / t.infer;
  return t.infer_s / t.infer;
}

/** Seconds per unit of work on one server, measured on the bottleneck; null when the window cannot say. */
function secondsPerUnit(kind: BottleneckKind, verdicts: readonly Bottleneck[], timing: readonly TimingRow[], pilotWallSeconds: number | null): number | null {
  if (kind === 'gpu' || kind === 'front-end') {
    const known = verdicts.filter((v) => v.promptTokens !== null && v.promptTokens > 0 && v.wallS > 0);
    const tokens = known.reduce((a, v) => a + v.promptTokens!, 0);
    const busy = known.reduce((a, v) => a + v.wallS * (kind === 'gpu' ? (v.gpuBusy ?? 1) : 1), 0);
    return tokens > 0 && busy > 0 ? busy / tokens : null;
  }
  if (kind === 'frames') {
    const decode = timing.reduce((a, t) => a + t.decode_s, 0);
    return decode > 0 && pilotWallSeconds ? pilotWallSeconds / decode : null;
  }
  return null;
}

export function extrapolate(
  timing: readonly TimingRow[],
  todoRows: readonly TodoRow[] | null,
  todoError: string | null,
  servers: number | null,
  serversSource: string,
  pilotInferSeconds: number,
  pilotWallSeconds: number | null,
  bottleneck: PilotBottleneck | null = null,
): Report['extrapolation'] {
  const n = servers ?? 1;
  const serialBase = { servers, serversSource, serialSeconds: null, pilotConcurrency: null, estimatedSeconds: null, workTotal: null, secondsPerUnit: null };
  const pilotConcurrency = pilotWallSeconds && pilotWallSeconds > 0 && pilotInferSeconds > 0 ? pilotInferSeconds / (pilotWallSeconds * n) : null;
  // The verdict's own rate, else the request-seconds method (what a missing window leaves).
  let kind: BottleneckKind = bottleneck?.kind ?? 'unknown';
  const spu = secondsPerUnit(kind, bottleneck?.servers ?? [], timing, pilotWallSeconds);
  const fellBack = spu === null && kind !== 'client' && kind !== 'unknown';
  if (spu === null) kind = bottleneck?.kind === 'client' ? 'client' : 'unknown';
  const method = EXTRAPOLATION_METHODS[kind] + (fellBack ? ` (the ${UNIT[bottleneck!.kind]} rate of a ${bottleneck!.kind} verdict was not measured)` : '');
  if (!todoRows) {
    return {
      ...serialBase,
      method,
      bottleneck: kind,
      unit: UNIT[kind],
      available: false,
      reason: todoError ?? 'no dry run',
      rows: [],
      todoTotal: 0,
      untimedConditions: [],
    };
  }
  const todo = new Map<string, number>();
  for (const r of todoRows) todo.set(r.condition, (todo.get(r.condition) ?? 0) + r.todo);
  const timed = new Map(timing.filter((t) => t.infer > 0).map((t) => [t.condition, t]));
  const rows = [...todo.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([condition, count]) => {
      const t = timed.get(condition);
      const s = t ? t.infer_s / t.infer : null;
      const u = t ? perItem(t, kind) : null;
      return { condition, todo: count, secondsPerItem: s, requestSeconds: s === null ? null : s * count, unitPerItem: u, work: u === null ? null : u * count };
    });
  const untimed = rows.filter((r) => r.todo > 0 && r.secondsPerItem === null).map((r) => r.condition);
  const timedAny = rows.some((r) => r.secondsPerItem !== null);
  const serialSeconds = rows.reduce((a, r) => a + (r.requestSeconds ?? 0), 0) / n;
  const workTotal = rows.reduce((a, r) => a + (r.work ?? 0), 0);
  let estimatedSeconds: number | null;
  if (!timedAny) estimatedSeconds = null;
  else if (kind === 'frames') estimatedSeconds = workTotal * spu!;
  else if (spu !== null) estimatedSeconds = (workTotal * spu) / n;
  else estimatedSeconds = pilotConcurrency ? serialSeconds / pilotConcurrency : null;
  return {
    servers,
    serversSource,
    method,
    bottleneck: kind,
    unit: UNIT[kind],
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
    workTotal: timedAny ? workTotal : null,
    secondsPerUnit: spu,
    estimatedSeconds,
  };
}
