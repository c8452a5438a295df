// The host CPU record of a run root (issue 34): one JSON line a measured window (hostCpuSampler.ts writes them),
// each naming its run and the run's mode, so a later run can find what a pilot measured (`--frames-on auto`), and
// the summary the status file carries. The file is our working state (under .fpsweep/, not in the returns) and
// bounded: it is set aside as <name>.1.jsonl (one generation kept) when a run starts on it above MAX_RECORD_BYTES,
// and a run writes at most a logarithmic number of lines (the sampler's window doubles as the lines grow).
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { parseBoundedJson } from '../io/boundedJson';
import { renameUnder } from '../containment/rootFs';
import { CPU_BOUND_SHARE, hostCpuBound, hostCpuShare, oursShareOfBusy, sumWindows, type HostCpuMeasure } from './hostCpu';

/** Set aside above this size when a run starts (a 10 s window is ~200 bytes: ~5,000 windows). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Read at most this much of the end of a record (a record grown past its bound by hand is read, not refused). */
const READ_TAIL_BYTES = 4 * MAX_RECORD_BYTES;

export const hostCpuLineSchema = z.object({
  v: z.literal(1),
  runId: z.string(),
  /** The run's mode as its status says it ('pilot', 'full', 'custom'). */
  mode: z.string(),
  endedAt: z.string(),
  wallS: z.number().nonnegative(),
  cores: z.number().int().positive(),
  busyCoreS: z.number().nonnegative(),
  oursCoreS: z.number().nonnegative().nullable(),
  vllmCoreS: z.number().nonnegative().nullable(),
});
export type HostCpuLine = z.infer<typeof hostCpuLineSchema>;

/** What the status file says of the host's CPU over the run's requests so far (a run type's schema embeds it). */
export const hostCpuStatusSchema = z.object({
  cores: z.number().int().positive(),
  wallS: z.number().nonnegative(),
  busyCoreS: z.number().nonnegative(),
  oursCoreS: z.number().nonnegative().nullable(),
  vllmCoreS: z.number().nonnegative().nullable(),
  /** busyCoreS / (cores × wallS). */
  busyShare: z.number().min(0).max(1),
  /** The cores bound the run (hostCpu.ts's rule: busyShare ≥ CPU_BOUND_SHARE). */
  bound: z.boolean(),
  /** The last window alone. */
  last: z.object({ wallS: z.number().nonnegative(), busyShare: z.number().min(0).max(1) }).nullable(),
});
export type HostCpuStatus = z.infer<typeof hostCpuStatusSchema>;

export function lineMeasure(l: HostCpuLine): HostCpuMeasure {
  return { busyCoreS: l.busyCoreS, cores: l.cores, wallS: l.wallS, oursCoreS: l.oursCoreS, vllmCoreS: l.vllmCoreS };
}

export function hostCpuStatus(total: HostCpuMeasure, last: HostCpuMeasure | null): HostCpuStatus | null {
  const share = hostCpuShare(total);
  if (share === null) return null;
  const lastShare = last ? hostCpuShare(last) : null;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    cores: total.cores,
    wallS: r(total.wallS),
    busyCoreS: r(total.busyCoreS),
    oursCoreS: total.oursCoreS === null ? null : r(total.oursCoreS),
    vllmCoreS: total.vllmCoreS === null ? null : r(total.vllmCoreS),
    busyShare: share,
    bound: hostCpuBound(total),
    last: last && lastShare !== null ? { wallS: r(last.wallS), busyShare: lastShare } : null,
  };
}

const pct = (x: number) => `${Math.round(100 * x)}%`;

/** One line: "host CPU: 96% of 16 cores busy over 312 s (ours 48%, vLLM 40%, others 12% of the busy CPU; last 10 s 97%) — the cores bind". */
export function hostCpuText(s: HostCpuStatus): string {
  const ours = oursShareOfBusy(s);
  const vllm = s.vllmCoreS !== null && s.busyCoreS > 0 ? Math.min(1, s.vllmCoreS / s.busyCoreS) : null;
  // Others: every process outside our tree (another user's, a server we did not launch).
  const others = ours !== null && vllm !== null ? Math.max(0, 1 - ours - vllm) : null;
  const named = [vllm === null ? null : `vLLM ${pct(vllm)}`, others === null ? null : `others ${pct(others)}`].filter(Boolean);
  const parts = ours === null ? [] : [`ours ${pct(ours)}`, ...named];
  const split = parts.length ? `${parts.join(', ')} of the busy CPU` : '';
  const last = s.last ? `last ${Math.round(s.last.wallS)} s ${pct(s.last.busyShare)}` : '';
  const inner = [split, last].filter(Boolean).join('; ');
  return (
    `host CPU: ${pct(s.busyShare)} of ${s.cores} cores busy over ${Math.round(s.wallS)} s${inner ? ` (${inner})` : ''}` +
    (s.bound ? ` — the cores bind (≥ ${pct(CPU_BOUND_SHARE)})` : '')
  );
}

/** The record's file set aside as <name>.1.jsonl when it has grown past MAX_RECORD_BYTES (the older one dropped). */
export async function setAsideLargeRecord(root: string, file: string): Promise<boolean> {
  const size = (await fs.stat(file).catch(() => null))?.size ?? 0;
  if (size <= MAX_RECORD_BYTES) return false;
  await renameUnder(root, file, previousRecord(file));
  return true;
}

function previousRecord(file: string): string {
  return file.replace(/(\.jsonl)?$/, '.1.jsonl');
}

async function readTail(file: string): Promise<string> {
  const h = await fs.open(file, 'r').catch(() => null);
  if (!h) return '';
  try {
    const size = (await h.stat()).size;
    const start = Math.max(0, size - READ_TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await h.read(buf, 0, buf.length, start);
    const text = buf.toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text; // a cut first line is dropped
  } finally {
    await h.close();
  }
}

/** Every whole, valid line of the record (the set-aside generation first); a torn or foreign line is passed over. */
export async function readHostCpuLines(file: string): Promise<HostCpuLine[]> {
  const out: HostCpuLine[] = [];
  for (const f of [previousRecord(file), file]) {
    for (const line of (await readTail(f)).split('\n')) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = parseBoundedJson(line, { file: f });
      } catch {
        continue;
      }
      const r = hostCpuLineSchema.safeParse(value);
      if (r.success) out.push(r.data);
    }
  }
  return out;
}

export interface RunHostCpu {
  runId: string;
  mode: string;
  measure: HostCpuMeasure;
  endedAt: string;
}

/** The last run in the record whose mode is `mode` (its windows summed); null when none measured. */
export async function lastRunHostCpu(file: string, mode: string): Promise<RunHostCpu | null> {
  const lines = (await readHostCpuLines(file)).filter((l) => l.mode === mode);
  if (!lines.length) return null;
  const runId = lines[lines.length - 1].runId;
  const own = lines.filter((l) => l.runId === runId);
  const measure = sumWindows(own.map(lineMeasure));
  return measure ? { runId, mode, measure, endedAt: own[own.length - 1].endedAt } : null;
}

/**
 * The run's bottleneck line when the cores bind: the host first (every server waits on the same cores), then what
 * the servers' verdicts say, as runBottleneckLine put it.
 */
export function hostCpuBottleneckLine(s: HostCpuStatus, knob: string, serversLine: string | null): string {
  const servers = serversLine ? `; servers: ${serversLine.replace(/^bottleneck: /, '')}` : '';
  const ours = oursShareOfBusy(s);
  const split = ours === null ? '' : `, ours ${pct(ours)} of it`;
  return `bottleneck: host CPU-bound (${pct(s.busyShare)} of ${s.cores} cores busy over ${Math.round(s.wallS)} s${split}); turn: ${knob}${servers}`;
}
