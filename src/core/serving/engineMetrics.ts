// One scrape of a vLLM 0.11 /metrics page, as the bottleneck verdict reads it: counters and histogram sums are
// cumulative, so the verdict works on the difference of two scrapes (a window).
// Names as vLLM 0.11 registers them in vllm/v1/metrics/loggers.py (PrometheusStatLogger), read at main 96ebcaa3a
// (2025-09-30, days before the v0.11.0 release; the snapshot we could fetch has no tags). Labels `model_name`,
// `engine` (one set per engine core).
// What each timing covers (vllm/v1/metrics/stats.py, vllm/v1/engine/processor.py and async_llm.py, same tree):
//  - arrival_time is set in Processor.process_inputs (time.time(), when the caller gives none; the OpenAI server
//    gives none) BEFORE input preprocessing: hashing and the HF processor are inside e2e; media loading is not
//    (serving_engine._preprocess_chat awaits the loaded images before engine_client.generate).
//  - e2e_request_latency = last iteration's timestamp − arrival_time;
//  - request_queue_time = SCHEDULED − QUEUED (engine-core events: waiting in the scheduler's queue);
//  - request_inference_time = last token − SCHEDULED (prefill + decode, preemptions included);
//  - request_prefill_time = first token − SCHEDULED; time_to_first_token = first token − arrival_time.
// So per request: e2e − queue − inference = process_inputs (hashing, HF processor on cache misses, tokenizing)
// + the hand-over to the engine core; client latency − e2e = HTTP, chat parsing, media loading (a thread pool of
// VLLM_MEDIA_LOADING_THREAD_COUNT) and any wait for the API process's one event-loop thread.
// 0.11 exports no multimodal-cache counters (vllm:mm_cache_queries/hits came in #26285, 2025-10-10, after 0.11.0).

export interface HistogramSum {
  sum: number;
  count: number;
}

export interface EngineMetrics {
  /** Gauges (summed over engines). */
  running: number;
  waiting: number;
  /** vllm:kv_cache_usage_perc: a fraction in [0, 1] despite its name; the largest over engines. */
  kvCacheUsage: number;
  /** Counters. */
  promptTokens: number;
  generationTokens: number;
  prefixQueries: number;
  prefixHits: number;
  preemptions: number;
  /** Histograms: sum of seconds and number of finished requests. */
  e2e: HistogramSum;
  queue: HistogramSum;
  inference: HistogramSum;
  prefill: HistogramSum;
  /** Which of the histograms the page had at all (a server that exports none leaves the front end unknown). */
  hasRequestTimings: boolean;
}

type Scalar = 'running' | 'waiting' | 'promptTokens' | 'generationTokens' | 'prefixQueries' | 'prefixHits' | 'preemptions';
type Hist = 'e2e' | 'queue' | 'inference' | 'prefill';

const SCALARS: Record<string, Scalar> = {
  'vllm:num_requests_running': 'running',
  'vllm:num_requests_waiting': 'waiting',
  'vllm:prompt_tokens_total': 'promptTokens',
  'vllm:generation_tokens_total': 'generationTokens',
  'vllm:prefix_cache_queries_total': 'prefixQueries',
  'vllm:prefix_cache_hits_total': 'prefixHits',
  'vllm:num_preemptions_total': 'preemptions',
};

const HISTOGRAMS: Record<string, Hist> = {
  'vllm:e2e_request_latency_seconds': 'e2e',
  'vllm:request_queue_time_seconds': 'queue',
  'vllm:request_inference_time_seconds': 'inference',
  'vllm:request_prefill_time_seconds': 'prefill',
};

export function emptyEngineMetrics(): EngineMetrics {
  const h = () => ({ sum: 0, count: 0 });
  return {
    running: 0,
    waiting: 0,
    kvCacheUsage: 0,
    promptTokens: 0,
    generationTokens: 0,
    prefixQueries: 0,
    prefixHits: 0,
    preemptions: 0,
    e2e: h(),
    queue: h(),
    inference: h(),
    prefill: h(),
    hasRequestTimings: false,
  };
}

/** Parses the page; absent metrics read as 0, malformed lines are skipped. `modelName` keeps that model's label sets. */
export function parseEngineMetrics(text: string, modelName?: string): EngineMetrics {
  const out = emptyEngineMetrics();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/.exec(line);
    if (!m) continue;
    if (modelName !== undefined && m[3] !== undefined) {
      const lm = /(?:^|,)model_name="((?:[^"\\]|\\.)*)"/.exec(m[3]);
      if (lm && lm[1].replace(/\\(.)/g, '$1') !== modelName) continue;
    }
    const v = Number(m[4]);
    if (!Number.isFinite(v)) continue;
    const name = m[1];
    if (name === 'vllm:kv_cache_usage_perc') {
      out.kvCacheUsage = Math.max(out.kvCacheUsage, v);
      continue;
    }
    const scalar = SCALARS[name];
    if (scalar) {
      out[scalar] += v;
      continue;
    }
    const hm = /^(.*)_(sum|count)$/.exec(name);
    const hist = hm ? HISTOGRAMS[hm[1]] : undefined;
    if (hm && hist) {
      out[hist][hm[2] as 'sum' | 'count'] += v;
      out.hasRequestTimings = true;
    }
  }
  return out;
}

/** Counter and histogram growth from `a` to `b` (gauges as in `b`); a counter that went down (a restarted server) counts from 0. */
export function metricsDelta(a: EngineMetrics, b: EngineMetrics): EngineMetrics {
  const d = (x: number, y: number) => (y >= x ? y - x : y);
  const h = (x: HistogramSum, y: HistogramSum): HistogramSum => (y.count >= x.count ? { sum: d(x.sum, y.sum), count: y.count - x.count } : { ...y });
  return {
    running: b.running,
    waiting: b.waiting,
    kvCacheUsage: b.kvCacheUsage,
    promptTokens: d(a.promptTokens, b.promptTokens),
    generationTokens: d(a.generationTokens, b.generationTokens),
    prefixQueries: d(a.prefixQueries, b.prefixQueries),
    prefixHits: d(a.prefixHits, b.prefixHits),
    preemptions: d(a.preemptions, b.preemptions),
    e2e: h(a.e2e, b.e2e),
    queue: h(a.queue, b.queue),
    inference: h(a.inference, b.inference),
    prefill: h(a.prefill, b.prefill),
    hasRequestTimings: b.hasRequestTimings,
  };
}
