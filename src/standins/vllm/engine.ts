// At most max-num-seqs requests run at once; the rest wait in arrival order (vLLM's scheduler).
// A running request spends `workS` seconds of prefill (at full speed when alone; shared equally
// among the running requests in processor-sharing mode, the way one GPU is), then `fixedS` seconds
// that overlap freely with other requests (decoding the short answer: in vLLM's continuous batching
// the decode steps of all running sequences share each forward pass, so they cost the GPU ~nothing
// next to prefill, yet each request still waits for its steps).

export interface EngineJob {
  workS: number;
  fixedS: number;
  /** Called when the job gets a sequence slot (prefix-cache lookup happens then, like vLLM). */
  onStart?: () => void;
}

interface PsJob {
  remaining: number;
  /** Called with the (clock's) time at which the job's work ran out. */
  done: (finishedAtMs: number) => void;
}

/**
 * The engine's time: milliseconds and timers. The stand-in runs on the host's (`hostClock`); a test gives its own, so
 * it can say when time passes and when a timer fires (late, as on a busy host) and read the modelled times exactly,
 * never racing the host's timers.
 */
export interface EngineClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export const hostClock: EngineClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * The modelled GPU's prefill: jobs of `workS` seconds of work, one timer for the next finish, and the
 * seconds during which there was work. Work-conserving even when the host is busy: a timer that fires
 * late does not waste modelled GPU time — the time after a job ran out goes to the others, and the
 * job learns when it really finished. Subclasses say only how the work is divided among the jobs.
 */
abstract class ModelledProcessor {
  protected jobs: PsJob[] = [];
  private last: number;
  private timer: unknown = null;
  /** Seconds during which there was work (equals the work done: the processor never idles with work). */
  private busy = 0;

  constructor(private readonly clock: EngineClock) {
    this.last = clock.now();
  }

  get busyS(): number {
    this.advance();
    this.reschedule();
    return this.busy;
  }

  run(workS: number): Promise<number> {
    if (workS <= 0) return Promise.resolve(this.clock.now());
    return new Promise((resolve) => {
      this.advance();
      this.jobs.push({ remaining: workS, done: resolve });
      this.reschedule();
    });
  }

  /** Spends up to `left` seconds of GPU time on the jobs; returns the seconds spent (≤ left, > 0). */
  protected abstract spend(left: number): number;
  /** Seconds of GPU time until the next job finishes, if nothing new arrives. */
  protected abstract untilNextFinish(): number;

  private advance(): void {
    const now = this.clock.now();
    let left = (now - this.last) / 1000;
    this.last = now;
    while (left > 0 && this.jobs.length > 0) {
      const step = this.spend(left);
      left -= step;
      this.busy += step;
      const finished = this.jobs.filter((j) => j.remaining <= 1e-9);
      if (finished.length === 0) continue;
      this.jobs = this.jobs.filter((j) => j.remaining > 1e-9);
      for (const j of finished) j.done(now - left * 1000);
    }
  }

  private reschedule(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.jobs.length === 0) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.advance();
        this.reschedule();
      },
      Math.max(0, this.untilNextFinish() * 1000),
    );
  }
}

/** Processor sharing: every active job progresses at 1/k of the rate. */
class SharedProcessor extends ModelledProcessor {
  private minRemaining(): number {
    return Math.min(...this.jobs.map((j) => j.remaining));
  }

  protected spend(left: number): number {
    const k = this.jobs.length;
    const step = Math.min(left, this.minRemaining() * k);
    for (const j of this.jobs) j.remaining -= step / k;
    return step;
  }

  protected untilNextFinish(): number {
    return this.minRemaining() * this.jobs.length;
  }
}

/**
 * vLLM's order: the V1 scheduler walks its running requests in admission order and gives each the
 * prefill tokens it still needs out of the step's token budget (max_num_batched_tokens) before the
 * next one gets any (vllm/v1/core/sched/scheduler.py, "First, schedule the RUNNING requests"); decode
 * steps of the others ride along. So prefills complete one after another in admission order, at the
 * GPU's full rate — first come, first served — not all together at the end as under processor sharing.
 */
class FcfsProcessor extends ModelledProcessor {
  protected spend(left: number): number {
    const head = this.jobs[0];
    const step = Math.min(left, head.remaining);
    head.remaining -= step;
    return step;
  }

  protected untilNextFinish(): number {
    return this.jobs[0].remaining;
  }
}

/** How running requests share the modelled GPU's prefill. */
export type PrefillMode = 'parallel' | 'shared' | 'fcfs';

export class Engine {
  private runningCount = 0;
  /** Requests in their prefill phase, and the time (s) during which there was at least one. */
  private prefilling = 0;
  private busyS = 0;
  private busySince = 0;
  private readonly queue: Array<() => void> = [];
  /** null: every running request prefills in parallel at full speed (sleeps). */
  private readonly shared: ModelledProcessor | null;

  constructor(
    private readonly maxNumSeqs: number,
    mode: PrefillMode,
    private readonly clock: EngineClock = hostClock,
  ) {
    this.shared = mode === 'shared' ? new SharedProcessor(clock) : mode === 'fcfs' ? new FcfsProcessor(clock) : null;
  }

  private sleep(s: number): Promise<void> {
    return new Promise<void>((r) => this.clock.setTimeout(r, Math.max(0, s * 1000)));
  }

  get running(): number {
    return this.runningCount;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Seconds so far during which at least one running request was in prefill (the modelled GPU busy). */
  get busySeconds(): number {
    if (this.shared) return this.shared.busyS;
    return this.busyS + (this.prefilling > 0 ? (this.clock.now() - this.busySince) / 1000 : 0);
  }

  /** Prefill; returns the time (the clock's) at which it ended in the model. */
  private async prefill(workS: number): Promise<number> {
    if (this.shared) return this.shared.run(workS);
    if (workS <= 0) return this.clock.now();
    if (this.prefilling++ === 0) this.busySince = this.clock.now();
    try {
      await this.sleep(workS);
    } finally {
      if (--this.prefilling === 0) this.busyS += (this.clock.now() - this.busySince) / 1000;
    }
    return this.clock.now();
  }

  async run(job: EngineJob): Promise<void> {
    if (this.runningCount >= this.maxNumSeqs) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.runningCount++;
    }
    try {
      job.onStart?.();
      const endedAt = await this.prefill(job.workS);
      // The fixed part runs from the modelled end of prefill (a late timer on a busy host is not latency).
      await this.sleep(job.fixedS - (this.clock.now() - endedAt) / 1000);
    } finally {
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so `running` never dips while work waits.
      if (next) next();
      else this.runningCount--;
    }
  }
}
