// Reads a vLLM /metrics page (Prometheus text) into the few numbers the scheduler watches.

export interface VllmMetrics {
  running: number;
  waiting: number;
  promptTokens: number;
  prefixQueries: number;
  prefixHits: number;
}

const NAMES: Record<string, keyof VllmMetrics> = {
  'vllm:num_requests_running': 'running',
  'vllm:num_requests_waiting': 'waiting',
  'vllm:prompt_tokens_total': 'promptTokens',
  'vllm:prefix_cache_queries_total': 'prefixQueries',
  'vllm:prefix_cache_hits_total': 'prefixHits',
};

/**
 * Sums each metric over its label sets (one per engine), keeping only `model_name` when given.
 * Metrics absent from the page read as 0; a malformed sample line is skipped, never guessed.
 */
export function parseVllmMetrics(text: string, modelName?: string): VllmMetrics {
  const out: VllmMetrics = { running: 0, waiting: 0, promptTokens: 0, prefixQueries: 0, prefixHits: 0 };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/.exec(line.trim());
    if (!m) continue;
    const key = NAMES[m[1]];
    if (!key) continue;
    if (modelName !== undefined && m[3] !== undefined) {
      const lm = /(?:^|,)model_name="((?:[^"\\]|\\.)*)"/.exec(m[3]);
      if (lm && lm[1].replace(/\\(.)/g, '$1') !== modelName) continue;
    }
    const v = Number(m[4]);
    if (Number.isFinite(v)) out[key] += v;
  }
  return out;
}

/** Scrapes one server's /metrics; null when it does not answer (the caller treats it as unknown). */
export async function scrapeMetrics(
  client: { get(path: string, timeoutMs?: number): Promise<{ status: number; text: string }> },
  modelName?: string,
  timeoutMs = 3_000,
): Promise<VllmMetrics | null> {
  try {
    const r = await client.get('/metrics', timeoutMs);
    return r.status === 200 ? parseVllmMetrics(r.text, modelName) : null;
  } catch {
    return null;
  }
}
