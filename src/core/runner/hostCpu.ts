// The host's cores as a bound (issue 34): one rule for the host bench's honest makespan and the pilot's bottleneck
// line. Everything that runs on the host's cores — our frames, vLLM's API processes (their event-loop threads and
// torch threads), their media-loading pools, the engine cores' loops — shares them. So no schedule finishes before
// all of that CPU has run on `cores` cores: the CPU floor is Σ CPU seconds / cores, and a makespan below it is
// optimistic. A window is CPU-bound when its busy core-seconds reach CPU_BOUND_SHARE of cores × wall: the cores
// are then (nearly) always full, and more GPU work cannot be fed faster than they allow.
export const HOST_CPU_KINDS = ['frames', 'api', 'media', 'engine', 'other'] as const;
export type HostCpuKind = (typeof HOST_CPU_KINDS)[number];
export type HostCpuSeconds = Partial<Record<HostCpuKind, number>>;

/** The cores count as the bound from this share of cores × wall busy (a host at 90 % has no room for a burst). */
export const CPU_BOUND_SHARE = 0.9;

export function totalCpuS(cpu: HostCpuSeconds): number {
  return HOST_CPU_KINDS.reduce((s, k) => s + Math.max(0, cpu[k] ?? 0), 0);
}

/** Σ CPU / cores: the least wall any schedule of this CPU needs on these cores. */
export function cpuFloorS(cpu: HostCpuSeconds, cores: number): number {
  if (!(cores > 0)) throw new RangeError(`cores must be > 0, got ${cores}`);
  return totalCpuS(cpu) / cores;
}

export interface HonestMakespan {
  /** The simulated (or measured) makespan as given. */
  simulatedS: number;
  floorS: number;
  /** max(simulated, floor): what the host can actually do. */
  honestS: number;
  /** The cores bind: the floor is above the simulated makespan. */
  cpuBound: boolean;
  /** Σ CPU / (cores × simulated): above 1, the simulation used more cores than the host has. */
  load: number;
}

export function honestMakespan(simulatedS: number, cpu: HostCpuSeconds, cores: number): HonestMakespan {
  const floorS = cpuFloorS(cpu, cores);
  const honestS = Math.max(simulatedS, floorS);
  return { simulatedS, floorS, honestS, cpuBound: floorS > simulatedS, load: simulatedS > 0 ? totalCpuS(cpu) / (cores * simulatedS) : Infinity };
}

export interface HostCpuWindow {
  /** Busy core-seconds of the whole host over the window (every process, ours and vLLM's). */
  busyCoreS: number;
  cores: number;
  wallS: number;
}

/** Share of the host's cores busy over the window (0..1); null without a window. */
export function hostCpuShare(w: HostCpuWindow): number | null {
  if (!(w.wallS > 0) || !(w.cores > 0)) return null;
  return Math.min(1, Math.max(0, w.busyCoreS / (w.cores * w.wallS)));
}

/** The same rule on a measured window: the host's cores bind when they were busy CPU_BOUND_SHARE of the time. */
export function hostCpuBound(w: HostCpuWindow): boolean {
  const share = hostCpuShare(w);
  return share !== null && share >= CPU_BOUND_SHARE;
}

/** A measured window with our own tree's part of it (null where /proc could not say). */
export interface HostCpuMeasure extends HostCpuWindow {
  /** Our worker's tree outside vLLM's servers: its frames (sharp, ffmpeg decodes, GPU frame helpers) and HTTP. */
  oursCoreS: number | null;
  /** The vLLM servers we launched, their whole trees (API processes, engine cores, workers). */
  vllmCoreS: number | null;
}

/** Windows one after another as one: their core-seconds and walls add up; null when there are none. */
export function sumWindows(windows: readonly HostCpuMeasure[]): HostCpuMeasure | null {
  if (!windows.length) return null;
  const add = (k: 'oursCoreS' | 'vllmCoreS') => (windows.every((w) => w[k] !== null) ? windows.reduce((s, w) => s + w[k]!, 0) : null);
  return {
    busyCoreS: windows.reduce((s, w) => s + w.busyCoreS, 0),
    cores: Math.max(...windows.map((w) => w.cores)),
    wallS: windows.reduce((s, w) => s + w.wallS, 0),
    oursCoreS: add('oursCoreS'),
    vllmCoreS: add('vllmCoreS'),
  };
}

/** Share of the host's busy core-seconds that were ours (null: unknown, or an idle host). */
export function oursShareOfBusy(m: HostCpuMeasure): number | null {
  return m.oursCoreS !== null && m.busyCoreS > 0 ? Math.min(1, m.oursCoreS / m.busyCoreS) : null;
}
