// A clock the test moves (for code that takes its time and timers from a clock it is given, e.g. the stand-in's
// Engine): time passes only when the test says so, and a timer fires only when the test runs it, on time or late. A
// test then reads the modelled times exactly instead of measuring the host's, whose timers fire late under load
// ("a test must not win a race: wait for the state you caused, never for time").
import { setImmediate as settled } from 'node:timers/promises';

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

export class ManualClock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): number {
    const timer = { id: ++this.seq, due: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(id: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== id);
  }

  /** Timers set and not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** The host busy for `ms`: the time passes and no timer fires (those that fall due meanwhile fire late). */
  block(ms: number): void {
    this.t += ms;
  }

  /**
   * Fires the timers in the order they fall due, each at its due time (or now, if it is already late), letting what
   * each one settles run (and set its own timers) before the next; until none is left. Bounded: a timer that keeps
   * setting timers at the same time is a failure, not a hang.
   */
  async runAll(maxFirings = 10_000): Promise<void> {
    await settled();
    for (let n = 0; this.timers.length > 0; n++) {
      if (n >= maxFirings) throw new Error(`${maxFirings} timers fired and ${this.timers.length} still set at ${this.t} ms`);
      const next = this.timers.reduce((a, b) => (b.due < a.due || (b.due === a.due && b.id < a.id) ? b : a));
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.due);
      next.fn();
      await settled();
    }
  }
}
