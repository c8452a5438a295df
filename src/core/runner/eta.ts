// The run's time-left estimate, in one place: the worker writes it to the status file and the views
// read it from there. By tokens when the recent answers tell the token rate (requests differ in size
// by orders of magnitude: a v_blind request is ~100 tokens, a capped fps one 65,000), else by requests.

/** Answers of the last `windowMs`: what the rates are measured on. */
export class Throughput {
  private readonly recent: { t: number; frames: number; tokens: number }[] = [];

  constructor(private readonly windowMs = 120_000) {}

  answered(frames: number, tokens: number, t = Date.now()): void {
    this.recent.push({ t, frames, tokens });
  }

  /** Rates over the window (at least 10 s, never before `since`: the run's start). */
  rates(now: number, since: number): { requestsPerMin: number; framesPerSec: number; tokensPerSec: number } {
    while (this.recent.length && this.recent[0].t < now - this.windowMs) this.recent.shift();
    const span = this.recent.length ? Math.max(10, (now - Math.max(this.recent[0].t, since)) / 1000) : 0;
    if (!span) return { requestsPerMin: 0, framesPerSec: 0, tokensPerSec: 0 };
    return {
      requestsPerMin: (this.recent.length / span) * 60,
      framesPerSec: this.recent.reduce((s, r) => s + r.frames, 0) / span,
      tokensPerSec: this.recent.reduce((s, r) => s + r.tokens, 0) / span,
    };
  }
}

export interface EtaInputs {
  /** Requests left. */
  todo: number;
  /** Predicted prompt tokens of the requests left. */
  remainingTokens: number;
  tokensPerSec: number;
  requestsPerMin: number;
}

/** Seconds left: 0 when nothing is, null when no rate is known yet. */
export function estimateEtaSeconds(x: EtaInputs): number | null {
  if (x.todo === 0) return 0;
  if (x.tokensPerSec > 0) return x.remainingTokens / x.tokensPerSec;
  if (x.requestsPerMin > 0) return (x.todo / x.requestsPerMin) * 60;
  return null;
}

/** What is left of one part of the run (a benchmark) or of the whole: requests, and their tokens when known. */
export interface LeftOver {
  todo: number;
  /** Predicted prompt tokens of the requests left; null when the status file does not carry them (an older worker). */
  tokens: number | null;
}

/**
 * A part's share of the run's ETA, measured as the run's own estimate is: by tokens when both counts
 * carry them, else by requests. Null when the run has none or the part has nothing left.
 */
export function etaShare(runEtaSeconds: number | null, part: LeftOver, whole: LeftOver): number | null {
  if (runEtaSeconds === null || part.todo === 0) return null;
  if (part.tokens !== null && whole.tokens !== null && whole.tokens > 0) return (runEtaSeconds * part.tokens) / whole.tokens;
  return whole.todo > 0 ? (runEtaSeconds * part.todo) / whole.todo : null;
}
