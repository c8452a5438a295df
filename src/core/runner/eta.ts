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
