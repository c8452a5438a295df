// The host's CPU in the status file and in words (issue 34): a recorded window's line, the run's summary the status
// carries, its text and the bottleneck line when the cores bind. No Node here: the report's schema (which the
// webview's types read) embeds it; the record's file is hostCpuRecord.ts's.
import { z } from 'zod';
import { CPU_BOUND_SHARE, hostCpuBound, hostCpuShare, oursShareOfBusy, type HostCpuMeasure } from './hostCpu';

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
