// Queue figures for the status file and the bottleneck verdict's engine side: every `everyTicks` status ticks,
// each server's /metrics is read. Best effort: health comes from the launcher's monitor, so a server that does
// not answer here keeps its last figures. `startWindow()` takes the scrape the verdict's window starts from.
import { parseEngineMetrics, type EngineMetrics } from '../serving/engineMetrics';

/** What the poller needs of a client (VllmClient has it). */
export interface MetricsSource {
  get(path: string, timeoutMs: number): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** One server's scrapes since the window started. */
export interface EngineWindow {
  /** The first and the latest scrape of the window (null: none answered yet). */
  first: EngineMetrics | null;
  last: EngineMetrics | null;
  /** Clock (ms) of the window's start and of the latest scrape. */
  startedAt: number;
  lastAt: number;
  samples: { total: number; busy: number; runningSum: number; waitingSum: number };
}

export class MetricsPoller {
  private ticks = 0;
  private readonly windows: EngineWindow[];

  constructor(
    private readonly sources: readonly MetricsSource[],
    private readonly onFigures: (index: number, f: { running: number; waiting: number }) => void,
    private readonly everyTicks = 5,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.windows = sources.map(() => this.freshWindow());
  }

  private freshWindow(): EngineWindow {
    const now = this.clock();
    return { first: null, last: null, startedAt: now, lastAt: now, samples: { total: 0, busy: 0, runningSum: 0, waitingSum: 0 } };
  }

  /** One status tick; every `everyTicks`-th polls (without waiting for the answers). */
  tick(): void {
    if (++this.ticks % this.everyTicks === 0) void this.poll();
  }

  /** Starts the verdict's window now: a scrape each server's later ones are measured from (pre-flight work left out). */
  async startWindow(): Promise<void> {
    this.windows.forEach((_, i) => (this.windows[i] = this.freshWindow()));
    await this.poll(false);
  }

  /** Each server's window so far. */
  engineWindows(): EngineWindow[] {
    return this.windows.map((w) => ({ ...w, samples: { ...w.samples } }));
  }

  async poll(sample = true): Promise<void> {
    await Promise.all(
      this.sources.map(async (c, i) => {
        try {
          const r = await c.get('/metrics', 2000);
          if (r.status !== 200) return;
          const m = parseEngineMetrics(r.text);
          this.onFigures(i, { running: m.running, waiting: m.waiting });
          const w = this.windows[i];
          w.first ??= m;
          w.last = m;
          w.lastAt = this.clock();
          if (sample) {
            w.samples.total++;
            if (m.running > 0) w.samples.busy++;
            w.samples.runningSum += m.running;
            w.samples.waitingSum += m.waiting;
          }
        } catch {
          /* health comes from the monitor; metrics are best effort */
        }
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((c) => c.close()));
  }
}
