// Byte progress with a rate and an ETA, for long streaming jobs (shard hashing, extraction,
// the returns tarball, uploads). The rate is over a sliding window so that a stall shows.

export interface ProgressSnapshot {
  label: string;
  doneBytes: number;
  totalBytes: number;
  /** Bytes per second over the last window (0 until two samples exist). */
  bytesPerSecond: number;
  /** Seconds left at the current rate, or null while the rate is unknown. */
  etaSeconds: number | null;
  elapsedSeconds: number;
}

export type ProgressListener = (p: ProgressSnapshot) => void;

export class ProgressMeter {
  private done = 0;
  private readonly started: number;
  private readonly samples: Array<{ t: number; bytes: number }> = [];
  private lastEmit = 0;

  constructor(
    readonly label: string,
    readonly totalBytes: number,
    private readonly listener?: ProgressListener,
    private readonly emitEveryMs = 500,
    private readonly windowMs = 5000,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.started = this.now();
    this.samples.push({ t: this.started, bytes: 0 });
  }

  add(bytes: number): void {
    this.done += bytes;
    const t = this.now();
    if (t - this.lastEmit >= this.emitEveryMs) {
      this.lastEmit = t;
      this.sample(t);
      this.listener?.(this.snapshot());
    }
  }

  /** Emits a final snapshot (always, regardless of the throttle). */
  finish(): ProgressSnapshot {
    this.sample(this.now());
    const s = this.snapshot();
    this.listener?.(s);
    return s;
  }

  private sample(t: number): void {
    this.samples.push({ t, bytes: this.done });
    while (this.samples.length > 2 && t - this.samples[0].t > this.windowMs) this.samples.shift();
  }

  snapshot(): ProgressSnapshot {
    const t = this.now();
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const dt = (last.t - first.t) / 1000;
    const rate = dt > 0 ? (last.bytes - first.bytes) / dt : 0;
    const left = Math.max(0, this.totalBytes - this.done);
    return {
      label: this.label,
      doneBytes: this.done,
      totalBytes: this.totalBytes,
      bytesPerSecond: rate,
      etaSeconds: rate > 0 ? left / rate : left === 0 ? 0 : null,
      elapsedSeconds: (t - this.started) / 1000,
    };
  }
}

export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}

/** One stderr line: `label  1.20 GB / 4.00 GB  30%  210 MB/s  ETA 13s`. */
export function formatProgress(p: ProgressSnapshot): string {
  const pct = p.totalBytes > 0 ? Math.min(100, Math.floor((100 * p.doneBytes) / p.totalBytes)) : 100;
  const eta = p.etaSeconds === null ? 'ETA ?' : `ETA ${formatDuration(p.etaSeconds)}`;
  return `${p.label}  ${formatBytes(p.doneBytes)} / ${formatBytes(p.totalBytes)}  ${pct}%  ${formatBytes(p.bytesPerSecond)}/s  ${eta}`;
}
