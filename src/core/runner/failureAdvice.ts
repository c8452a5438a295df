// What a server's words likely mean and what to do, for the engine's stops (fail-fast, every server gone): a
// table of vLLM's messages (its wording: serving/vllmMessages.ts) in no run type's terms. A run type gives its
// own table (its flags, its context, its preparation) through RunStopper.advise and ServerHealth's hooks; the
// first matching row wins, and an unknown message still gets a next step.

export interface Advice {
  meaning: string;
  action: string;
}

export interface AdviceRow extends Advice {
  test(message: string, status: number | null, kind: string): boolean;
}

export type Advise = (message: string, status?: number | null, kind?: string) => Advice;

/** A table as an advise function: the first row that matches, else `unknown`. */
export function adviceFrom(rows: readonly AdviceRow[], unknown: Advice): Advise {
  return (message, status = null, kind = 'request') => {
    const row = rows.find((r) => r.test(message, status, kind));
    return row ? { meaning: row.meaning, action: row.action } : unknown;
  };
}

/** What each of the engine's rows is about: a run type gives its own action (or meaning) by this name. */
export type EngineAdviceId = 'unauthorized' | 'model' | 'context' | 'oom' | 'refused' | 'reset' | 'timeout' | 'unavailable';

const ROWS: (AdviceRow & { id: EngineAdviceId })[] = [
  {
    id: 'unauthorized',
    test: (m, status) => status === 401 || /^Unauthorized\b/.test(m),
    meaning: 'the server wants another API key',
    action: 'give the key the server was started with (--api-key / VLLM_API_KEY)',
  },
  {
    id: 'model',
    test: (m, status) => status === 404 || /The model `[^`]*` does not exist/.test(m),
    meaning: 'the server does not serve the model name the request asks for',
    action: 'start vLLM with the expected --served-model-name, or check that every endpoint serves the same model',
  },
  {
    id: 'context',
    test: (m, _s, kind) => kind === 'context' || /maximum (model|context) length/.test(m),
    meaning: "the prompts do not fit the server's context window",
    action: "start vLLM with the --max-model-len the run type needs (it is never lowered); see the server's log",
  },
  {
    id: 'oom',
    test: (m) => /CUDA out of memory|OutOfMemoryError/.test(m),
    meaning: 'the server ran out of GPU memory',
    action: "lower the requests in flight or the server's GPU memory share; see the server's log",
  },
  {
    id: 'refused',
    test: (m) => /ECONNREFUSED|connection refused/i.test(m),
    meaning: "nothing listens at the server's address: it is not running, has crashed, or the URL/port is wrong",
    action: "check the endpoint URL and that the server is up (curl <url>/health); for launched servers see the run's vLLM logs",
  },
  {
    id: 'reset',
    test: (m) => /ECONNRESET|socket|aborted|EPIPE|other side closed/i.test(m),
    meaning: 'the server closed connections mid-request: it crashed or was restarted',
    action: "see the server's log",
  },
  {
    id: 'timeout',
    test: (m) => /Timeout|ETIMEDOUT/i.test(m),
    meaning: 'the server did not answer in time: it is hung, overloaded or unreachable',
    action: "check the server's log and load (GET /metrics); lower the requests in flight if it is overloaded",
  },
  {
    id: 'unavailable',
    test: (m, status) => status === 503 || /Service Unavailable/i.test(m),
    meaning: 'the server says it cannot serve now (starting, overloaded or shutting down)',
    action: 'wait until GET /health answers 200, then run again',
  },
];

/**
 * The engine's rows, in its order, with a run type's own words where it gives them (its flags, its files): one
 * table of vLLM's messages, so a run type's advice never copies the engine's tests of them.
 */
export function engineAdviceRows(own: Partial<Record<EngineAdviceId, Partial<Advice>>> = {}): (AdviceRow & { id: EngineAdviceId })[] {
  return ROWS.map((r) => ({ ...r, ...own[r.id] }));
}

/** The engine's advice, for a run type that gives none. */
export const adviseFailure: Advise = adviceFrom(ROWS, {
  meaning: 'a refusal the engine does not know: every request meets it, so the setup (not the data) is the likely cause',
  action: "read the message and the server's log",
});
