// Samples the host's CPU during a run's requests (issue 34) and records each window (hostCpuRecord.ts): what the
// bottleneck line and `--frames-on auto` judge the host by. Cheap and bounded: one reading (hostCpuProc.ts: /proc/stat
// and our tree's /proc/<pid>/stat) a window, the window PERIOD_S long and doubled every LINES_PER_DOUBLING lines, so
// a run of any length writes a logarithmic number of lines; the run's session tick asks (tick()), no timer of its own.
import { AppendFile } from './appendFile';
import { resolveInside } from '../containment/resolve';
import { ContainmentError } from '../containment/containmentError';
import { sumWindows, type HostCpuMeasure } from './hostCpu';
import type { CpuReader, CpuReading } from './hostCpuProc';
import { setAsideLargeRecord } from './hostCpuRecord';
import { hostCpuStatus, type HostCpuLine, type HostCpuStatus } from './hostCpuStatus';

/** The first windows' length: a minute's pilot gets ~6 of them. */
export const PERIOD_S = 10;
/** Lines a level: the first hour at 10 s, the next two at 20 s, the next four at 40 s… */
export const LINES_PER_DOUBLING = 360;

export interface HostCpuSamplerOptions {
  reader: CpuReader;
  /** The run root and its record (all writes through the containment module). */
  root: string;
  file: string;
  runId: string;
  mode: string;
  periodS?: number;
  linesPerDoubling?: number;
  /** Where a failed read or write is said (never thrown into the run). */
  log?: (line: string) => void;
}

/** One window between two readings; null when the clock did not move. */
export function windowBetween(a: CpuReading, b: CpuReading): HostCpuMeasure | null {
  const wallS = (b.atMs - a.atMs) / 1000;
  if (!(wallS > 0)) return null;
  const diff = (x: number | null, y: number | null) => (x === null || y === null ? null : Math.max(0, y - x));
  return {
    wallS,
    cores: b.cores,
    busyCoreS: Math.max(0, b.hostBusyS - a.hostBusyS),
    oursCoreS: diff(a.oursS, b.oursS),
    vllmCoreS: diff(a.vllmS, b.vllmS),
  };
}

export class HostCpuSampler {
  private readonly record: AppendFile;
  private prev: CpuReading | null = null;
  private lastWindow: HostCpuMeasure | null = null;
  private total: HostCpuMeasure | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private reading = false;
  lines = 0;

  constructor(private readonly o: HostCpuSamplerOptions) {
    this.record = new AppendFile(o.root, o.file);
  }

  /** The window's length now (it doubles as the lines grow). */
  get periodS(): number {
    return (this.o.periodS ?? PERIOD_S) * 2 ** Math.floor(this.lines / (this.o.linesPerDoubling ?? LINES_PER_DOUBLING));
  }

  /** The first reading (a record grown past its bound is set aside first). */
  async start(): Promise<void> {
    // A link at the record is refused here, with its path (exit 2), not left to a later append's warning (issue 42).
    await resolveInside(this.o.root, this.o.file);
    // A link where the record is set aside is refused the same (it was logged and the run went on, the record unbounded).
    await setAsideLargeRecord(this.o.root, this.o.file).catch((err) => {
      if (err instanceof ContainmentError) throw err;
      this.o.log?.(`host CPU record: ${(err as Error).message}`);
    });
    this.prev = await this.read();
  }

  /** From the run's tick: a reading once the window has run its length (none while one is under way). */
  tick(nowMs: number): void {
    if (this.stopped || this.reading || !this.prev || nowMs - this.prev.atMs < this.periodS * 1000) return;
    void this.sample();
  }

  /** Ends the window now: reads, records the window, adds it up. Serialised; the window's line, or null. */
  sample(): Promise<HostCpuLine | null> {
    const p = this.chain.then(() => this.sampleNow());
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** The last window (a partial one) and no more. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.sample();
    this.stopped = true;
    await this.chain;
    await this.record.close().catch(() => undefined);
  }

  /** The run's windows so far, as the status file says them (null before the first window). */
  status(): HostCpuStatus | null {
    return this.total ? hostCpuStatus(this.total, this.lastWindow) : null;
  }

  /** The run's windows summed. */
  measure(): HostCpuMeasure | null {
    return this.total;
  }

  private async read(): Promise<CpuReading | null> {
    this.reading = true;
    try {
      return await this.o.reader.read();
    } catch (err) {
      this.o.log?.(`host CPU reading: ${(err as Error).message}`);
      return null;
    } finally {
      this.reading = false;
    }
  }

  private async sampleNow(): Promise<HostCpuLine | null> {
    if (this.stopped) return null;
    const b = await this.read();
    if (!b) return null;
    const a = this.prev;
    this.prev = b;
    const w = a ? windowBetween(a, b) : null;
    if (!w) return null;
    // Only the last window is kept whole (the status's "last"); the rest live in the total and the record.
    this.lastWindow = w;
    this.total = sumWindows(this.total ? [this.total, w] : [w]);
    const line: HostCpuLine = { v: 1, runId: this.o.runId, mode: this.o.mode, endedAt: new Date().toISOString(), ...round(w) };
    this.lines++;
    await this.record.append(`${JSON.stringify(line)}\n`).catch((err) => this.o.log?.(`host CPU record: ${(err as Error).message}`));
    return line;
  }
}

/** Core-seconds to the millisecond: enough for a share, and lines stay short. */
function round(w: HostCpuMeasure): Omit<HostCpuLine, 'v' | 'runId' | 'mode' | 'endedAt'> {
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const rn = (x: number | null) => (x === null ? null : r(x));
  return { wallS: r(w.wallS), cores: w.cores, busyCoreS: r(w.busyCoreS), oursCoreS: rn(w.oursCoreS), vllmCoreS: rn(w.vllmCoreS) };
}
