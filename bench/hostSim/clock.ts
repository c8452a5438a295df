// Simulated time for the host bench: a binary heap of timed callbacks. `run()` fires them in time order and,
// after each, lets the promise jobs it started settle (setImmediate), so the product's promise-driven
// scheduler (src/core/runner/scheduler.ts) runs unchanged on simulated time: a hook's promise resolves when
// the simulation says, and everything the scheduler does in reaction happens at that same instant.
export class SimClock {
  now = 0;
  private times: number[] = [];
  private seqs: number[] = [];
  private fns: (() => void)[] = [];
  private seq = 0;
  fired = 0;

  /** Calls `fn` at simulated time `t` (never earlier than now). */
  at(t: number, fn: () => void): void {
    const time = Math.max(t, this.now);
    const s = this.seq++;
    let i = this.times.length;
    this.times.push(time);
    this.seqs.push(s);
    this.fns.push(fn);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.times[p] < time || (this.times[p] === time && this.seqs[p] < s)) break;
      this.move(i, p);
      i = p;
    }
    this.times[i] = time;
    this.seqs[i] = s;
    this.fns[i] = fn;
  }

  /** A promise that resolves with `value` at simulated time `t`. */
  when<T>(t: number, value: T): Promise<T> {
    return new Promise((resolve) => this.at(t, () => resolve(value)));
  }

  private move(to: number, from: number): void {
    this.times[to] = this.times[from];
    this.seqs[to] = this.seqs[from];
    this.fns[to] = this.fns[from];
  }

  private pop(): (() => void) | null {
    const n = this.times.length;
    if (n === 0) return null;
    const fn = this.fns[0];
    this.now = this.times[0];
    const t = this.times.pop()!;
    const s = this.seqs.pop()!;
    const f = this.fns.pop()!;
    if (n > 1) {
      let i = 0;
      const last = n - 1;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= last) break;
        const r = l + 1;
        const c = r < last && (this.times[r] < this.times[l] || (this.times[r] === this.times[l] && this.seqs[r] < this.seqs[l])) ? r : l;
        if (this.times[c] > t || (this.times[c] === t && this.seqs[c] > s)) break;
        this.move(i, c);
        i = c;
      }
      this.times[i] = t;
      this.seqs[i] = s;
      this.fns[i] = f;
    }
    return fn;
  }

  /** Fires every event; resolves when none is left and the promise jobs have settled. */
  async run(): Promise<void> {
    const settle = () => new Promise<void>((r) => setImmediate(r));
    await settle();
    for (;;) {
      const fn = this.pop();
      if (!fn) {
        await settle();
        if (this.times.length === 0) return;
        continue;
      }
      fn();
      this.fired++;
      // Events at the same instant fire back to back; promise jobs settle once the instant is done.
      if (this.times.length === 0 || this.times[0] !== this.now) await settle();
    }
  }
}
