// At most max-num-seqs requests run at once; the rest wait in arrival order (vLLM's scheduler).
// A running request spends `workS` seconds of prefill (at full speed when alone; shared equally
// among the running requests in processor-sharing mode, the way one GPU is), then `fixedS` seconds
// that overlap freely with other requests (decoding the short answer).

export interface EngineJob {
  workS: number;
  fixedS: number;
  /** Called when the job gets a sequence slot (prefix-cache lookup happens then, like vLLM). */
  onStart?: () => void;
}

interface PsJob {
  remaining: number;
  done: () => void;
}

/** Processor sharing: every active job progresses at 1/k of the rate. */
class SharedProcessor {
  private readonly jobs = new Set<PsJob>();
  private last = performance.now();
  private timer: NodeJS.Timeout | null = null;

  run(workS: number): Promise<void> {
    if (workS <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.advance();
      this.jobs.add({ remaining: workS, done: resolve });
      this.reschedule();
    });
  }

  private advance(): void {
    const now = performance.now();
    if (this.jobs.size > 0) {
      const each = (now - this.last) / 1000 / this.jobs.size;
      for (const j of this.jobs) j.remaining -= each;
    }
    this.last = now;
  }

  private reschedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.jobs.size === 0) return;
    let min = Infinity;
    for (const j of this.jobs) min = Math.min(min, j.remaining);
    const ms = Math.max(0, min * this.jobs.size * 1000);
    this.timer = setTimeout(() => {
      this.advance();
      for (const j of [...this.jobs]) {
        if (j.remaining <= 1e-6) {
          this.jobs.delete(j);
          j.done();
        }
      }
      this.reschedule();
    }, ms);
  }
}

const sleep = (s: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, s * 1000)));

export class Engine {
  private runningCount = 0;
  private readonly queue: Array<() => void> = [];
  private readonly shared = new SharedProcessor();

  constructor(
    private readonly maxNumSeqs: number,
    private readonly sharedPrefill: boolean,
  ) {}

  get running(): number {
    return this.runningCount;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run(job: EngineJob): Promise<void> {
    if (this.runningCount >= this.maxNumSeqs) {
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.runningCount++;
    }
    try {
      job.onStart?.();
      await (this.sharedPrefill ? this.shared.run(job.workS) : sleep(job.workS));
      await sleep(job.fixedS);
    } finally {
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so `running` never dips while work waits.
      if (next) next();
      else this.runningCount--;
    }
  }
}
