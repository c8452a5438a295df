// Queue figures for the status file: every `everyTicks` status ticks, each server's /metrics is read
// (vLLM's running and waiting request gauges). Best effort: health comes from the launcher's monitor,
// so a server that does not answer here keeps its last figures.
import { parseVllmMetrics } from '../serving/metrics';

/** What the poller needs of a client (VllmClient has it). */
export interface MetricsSource {
  get(path: string, timeoutMs: number): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export class MetricsPoller {
  private ticks = 0;

  constructor(
    private readonly sources: readonly MetricsSource[],
    private readonly onFigures: (index: number, f: { running: number; waiting: number }) => void,
    private readonly everyTicks = 5,
  ) {}

  /** One status tick; every `everyTicks`-th polls (without waiting for the answers). */
  tick(): void {
    if (++this.ticks % this.everyTicks === 0) void this.poll();
  }

  async poll(): Promise<void> {
    await Promise.all(
      this.sources.map(async (c, i) => {
        try {
          const r = await c.get('/metrics', 2000);
          if (r.status === 200) {
            const m = parseVllmMetrics(r.text);
            this.onFigures(i, { running: m.running, waiting: m.waiting });
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
