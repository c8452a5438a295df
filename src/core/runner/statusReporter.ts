// The worker's status file as the run goes: built from what the run's units know (cells, in flight,
// rows added, servers, stop reason) plus live figures (throughput, ETA), written atomically, one write
// at a time (the timer and the run's milestones both write), each write also handed to `onStatus`.
import type { PackageLayout } from '../package/layout';
import { estimateEtaSeconds, Throughput } from './eta';
import { writeStatusAtomic } from './status';
import { runBottleneck, runBottleneckLine, type Bottleneck } from './bottleneck';
import type { CellProgress, ServerStatus, StopReason, WorkerState, WorkerStatus } from './statusSchema';

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
}

export class StatusReporter {
  state: WorkerState = 'starting';
  message: string | null = null;
  readonly throughput = new Throughput();
  private current: WorkerStatus | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly layout: PackageLayout,
    private readonly id: StatusIdentity,
    private readonly sources: StatusSources,
    private readonly onStatus?: (s: WorkerStatus) => void,
  ) {}

  /** The last status written (null before the first). */
  get last(): WorkerStatus | null {
    return this.current;
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
      bottleneck: verdicts.length ? { kind: runBottleneck(verdicts), line: runBottleneckLine(verdicts) } : null,
    };
  }

  /** Writes the status now (after any write under way). */
  write(summary: string | null = null): Promise<void> {
    const next = this.chain.then(async () => {
      this.current = this.make(summary);
      await writeStatusAtomic(this.layout, this.current);
      this.onStatus?.(this.current);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}
