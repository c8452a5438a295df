// Stop requests: SIGTERM, SIGINT, the stop file, an in-process AbortSignal. The first one asks for a
// drain (no new request; the in-flight ones finish and are written); later ones change nothing, except
// a second Ctrl-C in the foreground, which means "now" (rows already written are safe, the rest resumes).
import { existsSync } from 'node:fs';

/** The part of `process` the control listens on (a test passes its own). */
export interface SignalHost {
  on(signal: 'SIGTERM' | 'SIGINT', listener: (sig: NodeJS.Signals) => void): unknown;
  off(signal: 'SIGTERM' | 'SIGINT', listener: (sig: NodeJS.Signals) => void): unknown;
  exit(code: number): never;
}

export class DrainControl {
  private why: string | null = null;
  private readonly listeners: ((why: string) => void)[] = [];

  constructor(
    private readonly log: (line: string) => void,
    /** What a stop means for this run, for the log line (its stop policy). */
    private readonly meaning = 'draining — no new requests; in-flight ones finish and are written',
  ) {}

  /** Why the drain was asked for (the first request), or null while none was. */
  get requested(): string | null {
    return this.why;
  }

  /** Asks for a drain; only the first request counts. */
  request(why: string): void {
    if (this.why) return;
    this.why = why;
    this.log(`stop requested (${why}): ${this.meaning}`);
    for (const l of this.listeners) l(why);
  }

  /** Calls `listener` on the drain request (at once when it was already asked for). */
  onDrain(listener: (why: string) => void): void {
    this.listeners.push(listener);
    if (this.why) listener(this.why);
  }

  /** A stop file present asks for a drain (checked on each status tick). */
  checkStopFile(file: string): void {
    if (existsSync(file)) this.request('stop file');
  }

  /** Listens for SIGTERM / SIGINT and `stopSignal`; returns the function that stops listening. */
  /**
   * `stopFileName`: `fpsweep stop` writes this file before it sends SIGTERM, so a SIGTERM that finds it is that
   * one request, named the same whichever of the two the worker notices first.
   */
  attach(host: SignalHost = process, stopSignal?: AbortSignal, stopFileName?: string): () => void {
    const onSignal = (sig: NodeJS.Signals) => {
      if (this.why && sig === 'SIGINT') host.exit(130);
      this.request(sig === 'SIGTERM' && stopFileName && existsSync(stopFileName) ? 'stop file' : sig);
    };
    host.on('SIGTERM', onSignal);
    host.on('SIGINT', onSignal);
    const onAbort = () => this.request('stop signal');
    // A signal aborted before the run started is a stop request all the same.
    if (stopSignal?.aborted) onAbort();
    else stopSignal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      host.off('SIGTERM', onSignal);
      host.off('SIGINT', onSignal);
      stopSignal?.removeEventListener('abort', onAbort);
    };
  }
}
