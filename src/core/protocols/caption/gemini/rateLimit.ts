// --max-rpm: at most N generateContent requests in any 60 s window (https://ai.google.dev/gemini-api/docs/rate-limits:
// RPM is counted per project and model). A sliding window of the last N start times: a request waits until the
// oldest of them is 60 s old. The clock and the sleep are given, so the rule is tested without waiting.

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class RpmLimiter {
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly rpm: number | null,
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {}

  /** Resolves when one more request may start now (in call order). */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.wait(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async wait(signal?: AbortSignal): Promise<void> {
    if (this.rpm === null) return;
    for (;;) {
      const now = this.clock.now();
      while (this.starts.length && now - this.starts[0] >= this.windowMs) this.starts.shift();
      if (this.starts.length < this.rpm) {
        this.starts.push(now);
        return;
      }
      await this.clock.sleep(this.starts[0] + this.windowMs - now, signal);
    }
  }
}
