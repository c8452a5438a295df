// Frames × Pixels's status file as the sweep goes: built from what the run's units know (cells, in flight,
// rows added, servers, stop reason) plus live figures (throughput, ETA); the engine's StatusReporter writes it.
import type { PackageLayout } from '../package/layout';
import { estimateEtaSeconds, Throughput } from '../../../runner/eta';
import { StatusReporter } from '../../../runner/statusReporter';
import { runBottleneck, runBottleneckLine, type Bottleneck } from '../../../runner/bottleneck';
import { FP_BOTTLENECK_WORDS } from './fpBottleneckWords';
import type { ServerStatus } from '../../../runner/serverStatus';
import type { StopReason } from '../../../runner/stopReason';
import { hostCpuBottleneckLine, type HostCpuStatus } from '../../../runner/hostCpuStatus';
import { workerStatusSchema, type CellProgress, type WorkerState, type WorkerStatus } from '../status/statusSchema';

/** What the status file says about the run as a whole (fixed at start). */
export interface StatusIdentity {
  runId: string;
  pid: number;
  startedAt: number;
  mode: WorkerStatus['mode'];
  shard: string | null;
  benchmarks: string[];
  conditions: string[];
}

/** Where the live counts come from, read at each write. */
export interface StatusSources {
  cells(): CellProgress[];
  inFlight(): number;
  addedThisRun(): number;
  servers(): ServerStatus[];
  stopReason(): StopReason | null;
  /** The host's CPU so far, and what to turn when the cores bind (fpHostCpu.ts); absent: not measured. */
  hostCpu?(): HostCpuStatus | null;
  hostCpuKnob?(s: HostCpuStatus): string;
}

export class FpStatusReporter {
  state: WorkerState = 'starting';
  message: string | null = null;
  readonly throughput = new Throughput();
  private readonly reporter: StatusReporter<WorkerStatus>;

  constructor(
    layout: Pick<PackageLayout, 'root' | 'statusFile'>,
    private readonly id: StatusIdentity,
    private readonly sources: StatusSources,
    onStatus?: (s: WorkerStatus) => void,
  ) {
    this.reporter = new StatusReporter(layout.root, layout.statusFile, workerStatusSchema, (summary) => this.make(summary), onStatus);
  }

  /** The run's mode (pilot, full, custom). */
  get mode(): WorkerStatus['mode'] {
    return this.id.mode;
  }

  /** The last status written (null before the first). */
  get last(): WorkerStatus | null {
    return this.reporter.last;
  }

  /** Writes the status now (after any write under way). */
  write(summary: string | null = null): Promise<void> {
    return this.reporter.write(summary);
  }

  /** Marks the last status written failed (a run that ended by an exception). */
  fail(message: string, summary: string): Promise<void> {
    return this.reporter.patch((last) => ({ ...last, state: 'failed', message, updatedAt: new Date().toISOString(), summary }));
  }

  make(summary: string | null, now = Date.now()): WorkerStatus {
    const rates = this.throughput.rates(now, this.id.startedAt);
    const cells = this.sources.cells();
    const totals = {
      total: cells.reduce((s, c) => s + c.total, 0),
      done: cells.reduce((s, c) => s + c.done, 0),
      todo: cells.reduce((s, c) => s + c.todo, 0),
      inFlight: this.sources.inFlight(),
      failed: cells.reduce((s, c) => s + c.failed + c.noVideo, 0),
      failedBefore: cells.reduce((s, c) => s + c.failedBefore, 0),
      addedThisRun: this.sources.addedThisRun(),
    };
    const servers = this.sources.servers();
    const verdicts = servers.map((s) => s.bottleneck).filter((b): b is Bottleneck => !!b);
    const hostCpu = this.sources.hostCpu?.() ?? null;
    return {
      version: 1,
      pid: this.id.pid,
      runId: this.id.runId,
      startedAt: new Date(this.id.startedAt).toISOString(),
      updatedAt: new Date(now).toISOString(),
      state: this.state,
      mode: this.id.mode,
      shard: this.id.shard,
      benchmarks: this.id.benchmarks,
      conditions: this.id.conditions,
      message: this.message,
      totals,
      cells,
      throughput: { requestsPerMin: rates.requestsPerMin, framesPerSec: rates.framesPerSec },
      etaSeconds: estimateEtaSeconds({
        todo: totals.todo,
        remainingTokens: cells.reduce((s, c) => s + (c.remainingTokens ?? 0), 0),
        tokensPerSec: rates.tokensPerSec,
        requestsPerMin: rates.requestsPerMin,
      }),
      servers,
      summary,
      stopReason: this.sources.stopReason(),
      bottleneck: this.bottleneck(verdicts, hostCpu),
      hostCpu,
    };
  }

  /** The servers' verdicts, with the host's cores first when they bind. */
  private bottleneck(verdicts: Bottleneck[], hostCpu: HostCpuStatus | null): WorkerStatus['bottleneck'] {
    const serversLine = verdicts.length ? runBottleneckLine(verdicts, FP_BOTTLENECK_WORDS) : null;
    const kind = runBottleneck(verdicts);
    if (hostCpu?.bound) {
      const knob = this.sources.hostCpuKnob?.(hostCpu) ?? 'more cores for the GPUs';
      return { kind, line: hostCpuBottleneckLine(hostCpu, knob, serversLine), hostCpuBound: true };
    }
    return serversLine ? { kind, line: serversLine } : null;
  }
}
