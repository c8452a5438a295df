// One sweep's run as its steps share it: the package, the run id and log, the engine's session (lock, stop
// requests, tick), the data logs, and what the steps start along the way (status, servers, health,
// metrics, frames, the results writer), each closed at the end in the order the run needs (health before
// the servers it watches stop, so our own shutdown is not news).
import { existsSync, promises as fs } from 'node:fs';
import { InputError } from '../../../errors';
import type { Bottleneck } from '../../../runner/bottleneck';
import { RunnerLog } from '../../../runner/logs';
import type { MetricsPoller } from '../../../runner/metricsPoller';
import { newRunId } from '../../../runner/identity';
import { RunSession } from '../../../runner/runSession';
import type { ServerHealth } from '../../../runner/serverHealth';
import type { ServerSet } from '../../../runner/servers';
import { PackageLayout } from '../package/layout';
import { FailureLog, TimingLog } from './dataLogs';
import type { FpStatusReporter } from './fpStatus';
import type { FrameSource } from './frameSource';
import type { ResultsWriter } from './resultsWriter';
import type { RunOptions } from './runOptions';

export class SweepRun {
  readonly failures: FailureLog;
  readonly timing: TimingLog;
  status: FpStatusReporter | null = null;
  writer: ResultsWriter | null = null;
  servers: ServerSet | null = null;
  health: ServerHealth | null = null;
  metrics: MetricsPoller | null = null;
  frames: FrameSource | null = null;
  /** Requests in flight (the request runner's, once it runs). */
  inFlight: () => number = () => 0;
  /** Each server's bottleneck verdict since the requests started; frozen once they have finished. */
  verdicts: () => Bottleneck[] = () => [];

  private constructor(
    readonly layout: PackageLayout,
    readonly runId: string,
    readonly log: RunnerLog,
    readonly session: RunSession,
    readonly startedAt: number,
  ) {
    this.failures = new FailureLog(layout);
    this.timing = new TimingLog(layout);
  }

  /** The package checked, its log opened, its session (lock) taken: the run's 'drain' policy. */
  static async open(opts: RunOptions, hooks: { onLine?(line: string): void; stopSignal?: AbortSignal }, startedAt: number): Promise<SweepRun> {
    const layout = new PackageLayout(opts.package);
    if (!existsSync(layout.samplesDir)) throw new InputError(`${layout.root} is not a run package (no items/samples/)`);
    const runId = newRunId();
    await fs.mkdir(layout.logsDir, { recursive: true });
    const log = new RunnerLog(layout, runId, hooks.onLine);
    try {
      const session = await RunSession.open({ root: layout, runId, policy: 'drain', log, stopSignal: hooks.stopSignal });
      return new SweepRun(layout, runId, log, session, startedAt);
    } catch (err) {
      await log.close();
      throw err;
    }
  }

  /** Seconds since the run started. */
  wallS(): number {
    return (Date.now() - this.startedAt) / 1000;
  }

  /** Everything the run started, closed whatever happened (errors passed over), then the session and the log. */
  async close(): Promise<void> {
    await this.writer?.close().catch(() => undefined);
    await this.failures.close().catch(() => undefined);
    await this.timing.close().catch(() => undefined);
    this.health?.close();
    await this.frames?.close().catch(() => undefined);
    await this.servers?.close().catch(() => undefined);
    await this.session.close().catch(() => undefined);
    await this.log.close().catch(() => undefined);
  }
}
