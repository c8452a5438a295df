// The one way tests wait for something that happens elsewhere (a process, a file, a server): poll `cond` until it
// returns a truthy value, for at most `ms`. A wait that runs out throws, saying what was waited for and what `cond`
// last returned, so a slow machine shows up as a clear failure and never as a hang or a silent pass.
// `cond` throwing ends the wait at once with its error (a worker that died need not be waited for).

export interface WaitOptions {
  /** Between two polls (default 50 ms). */
  pollMs?: number;
}

/** What a wait resolves with: `cond`'s value once it is truthy. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** The last value, for the message: JSON, cut to a readable length. */
function show(v: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** Resolves with `cond`'s first truthy value; throws `message` and the last value once `ms` have passed. */
export async function waitFor<T>(cond: () => T | Promise<T>, ms: number, message: string | (() => string), opts: WaitOptions = {}): Promise<Truthy<T>> {
  const pollMs = opts.pollMs ?? 50;
  const end = Date.now() + ms;
  for (;;) {
    const last = await cond();
    if (last) return last as Truthy<T>;
    if (Date.now() >= end) {
      const what = typeof message === 'function' ? message() : message;
      throw new Error(`${what} (waited ${ms} ms; last value: ${show(last)})`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
