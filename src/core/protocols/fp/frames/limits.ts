// Small concurrency primitives of the frame pipeline: a counting limiter (the decode pool), a byte
// budget (raw frames held in memory) and a per-key mutex (one decode per video at a time).

/** FIFO counting semaphore. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`limiter size must be a whole number ≥ 1, got ${size}`);
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Takes a slot; the returned function gives it back (calling it again does nothing). */
  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` never dips and a newcomer cannot jump the queue.
      if (next) next();
      else this.active--;
    };
  }
  get running(): number {
    return this.active;
  }
  get queued(): number {
    return this.waiting.length;
  }
}

/**
 * Bytes of raw frames that may be held at once, shared by every decode. acquire() waits (which stops
 * reading ffmpeg's pipe, so ffmpeg blocks: backpressure) until the bytes are free. A single request
 * larger than the whole budget is granted alone, once everything else is released, so it cannot hang.
 */
export class ByteBudget {
  private used = 0;
  private peak = 0;
  private readonly waiting: Array<{ bytes: number; resolve: () => void }> = [];
  constructor(readonly limit: number) {
    if (!Number.isFinite(limit) || limit < 1) throw new RangeError(`byte budget must be ≥ 1, got ${limit}`);
  }
  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit;
  }
  async acquire(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.take(bytes);
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push({ bytes, resolve }));
  }
  /** acquire() when it would not wait; false (nothing taken) otherwise. */
  tryAcquire(bytes: number): boolean {
    if (this.waiting.length > 0 || !this.fits(bytes)) return false;
    this.take(bytes);
    return true;
  }
  release(bytes: number): void {
    this.used -= bytes;
    if (this.used < 0) throw new Error(`byte budget released more than it held (${this.used})`);
    // FIFO: a big waiter at the head is not starved by small ones behind it.
    while (this.waiting.length > 0 && this.fits(this.waiting[0].bytes)) {
      const w = this.waiting.shift()!;
      this.take(w.bytes);
      w.resolve();
    }
  }
  private take(bytes: number) {
    this.used += bytes;
    if (this.used > this.peak) this.peak = this.used;
  }
  get inUse(): number {
    return this.used;
  }
  /** The most bytes held at once since creation (tests check it against the limit). */
  get peakBytes(): number {
    return this.peak;
  }
}

/** Runs tasks with the same key one after another (two jobs of one video never decode it twice at once). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
