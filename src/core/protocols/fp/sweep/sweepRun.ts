// One sweep's run as its steps share it: the package, the run id and log, the engine's session (lock, stop
// requests, tick), the data logs, and what the steps start along the way (status, servers, health,
// metrics, frames, the results writer), each closed at the end in the order the run needs (health before
// the servers it watches stop, so our own shutdown is not news).
import { existsSync } from 'node:fs';
import { InputError } from '../../../errors';
import type { Bottleneck } from '../../../runner/bottleneck';
import { RunnerLog } from '../../../runner/logs';
import type { MetricsPoller } from '../../../runner/metricsPoller';
import { newRunId } from '../../../runner/identity';
import { withRunSession, type RunSession } from '../../../runner/runSession';
import type { ServerHealth } from '../../../runner/serverHealth';
import type { ServerSet } from '../../../runner/servers';
import { PackageLayout } from '../package/layout';
import { FailureLog, TimingLog } from './dataLogs';
import type { FpStatusReporter } from './fpStatus';
import type { FrameSource } from './frameSource';
import type { HostCpuSampler } from '../../../runner/hostCpuSampler';
import type { FramesPlacement } from '../frames/gpu/framesOn';
import type { ResultsWriter } from './resultsWriter';
import type { RunOptions } from './runOptions';
import { mkdirUnder } from '../../../containment/rootFs';

export class SweepRun {
  readonly failures: FailureLog;
  readonly timing: TimingLog;
  status: FpStatusReporter | null = null;
  writer: ResultsWriter | null = null;
  servers: ServerSet | null = null;
  health: ServerHealth | null = null;
  metrics: MetricsPoller | null = null;
  frames: FrameSource | null = null;
  /** The host's CPU over the requests (fpHostCpu.ts), once they start. */
  hostCpu: HostCpuSampler | null = null;
  /** Where the frames are made and what the GPU probe found, for the host CPU's knob (probed at the end if needed). */
  placement: FramesPlacement | null = null;
  /** Requests in flight (the request runner's, once it runs). */
  inFlight: () => number = () => 0;
  /** Each server's bottleneck verdict since the requests started; frozen once they have finished. */
  verdicts: () => Bottleneck[] = () => [];

  constructor(
    readonly layout: PackageLayout,
    readonly runId: string,
    readonly log: RunnerLog,
    readonly session: RunSession,
    readonly startedAt: number,
  ) {
    this.failures = new FailureLog(layout);
    this.timing = new TimingLog(layout);
  }

  /**
   * The package checked, its log opened, then `body` in the engine's session (lock, stop requests, tick) under the
   * run's 'drain' policy; what the steps started is closed before the session, the log after it, whatever happened.
   */
  static async run<T>(
    opts: RunOptions,
    hooks: { onLine?(line: string): void; stopSignal?: AbortSignal },
    startedAt: number,
    body: (run: SweepRun) => Promise<T>,
  ): Promise<T> {
    const layout = new PackageLayout(opts.package);
    if (!existsSync(layout.samplesDir)) throw new InputError(`${layout.root} is not a run package (no items/samples/)`);
    const runId = newRunId();
    await mkdirUnder(layout.root, layout.logsDir);
    const log = new RunnerLog(layout, runId, hooks.onLine);
    try {
      return await withRunSession({ root: layout, runId, policy: 'drain', log, stopSignal: hooks.stopSignal }, async (session) => {
        const run = new SweepRun(layout, runId, log, session, startedAt);
        try {
          return await body(run);
        } finally {
          await run.closeSteps();
        }
      });
    } finally {
      await log.close().catch(() => undefined);
    }
  }

  /** Seconds since the run started. */
  wallS(): number {
    return (Date.now() - this.startedAt) / 1000;
  }

  /** Everything the steps started, closed whatever happened (errors passed over); the session and the log are run()'s. */
  private async closeSteps(): Promise<void> {
    await this.writer?.close().catch(() => undefined);
    await this.failures.close().catch(() => undefined);
    await this.timing.close().catch(() => undefined);
    this.health?.close();
    await this.hostCpu?.stop().catch(() => undefined);
    await this.frames?.close().catch(() => undefined);
    await this.servers?.close().catch(() => undefined);
  }
}
