// /metrics in Prometheus text format with vLLM 0.11's names, help texts and labels (vllm/v1/metrics/loggers.py).
// vLLM 0.11.0 has no multimodal-cache metric (vllm:mm_cache_queries/_hits came with PR #26285, merged after the
// 0.11.0 release) and none for the API thread's time, so the front end's are under the stand-in's own names.
import type { FrontEndCounters } from './frontEndRuntime';

export interface Counters {
  promptTokens: number;
  generationTokens: number;
  prefixQueries: number;
  prefixHits: number;
  successStop: number;
  successLength: number;
}

export function newCounters(): Counters {
  return { promptTokens: 0, generationTokens: 0, prefixQueries: 0, prefixHits: 0, successStop: 0, successLength: 0 };
}

/** Python's float repr for the values we emit. */
function pyFloat(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

/**
 * `busyS`: seconds during which the modelled GPU had prefill work. Not a vLLM metric: it is emitted under
 * the stand-in's own name (`fpsweep_standin_busy_seconds_total`) for benchmarks, after vLLM's.
 */
export function renderMetrics(model: string, running: number, waiting: number, c: Counters, createdS: number, busyS = 0, fe?: FrontEndCounters): string {
  const lbl = `engine="0",model_name="${model.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const out: string[] = [];
  const gauge = (name: string, help: string, v: number) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${lbl}} ${pyFloat(v)}`);
  };
  const counter = (base: string, help: string, rows: Array<[string, number]>) => {
    out.push(`# HELP ${base}_total ${help}`, `# TYPE ${base}_total counter`);
    for (const [extra, v] of rows) out.push(`${base}_total{${lbl}${extra}} ${pyFloat(v)}`);
    for (const [extra] of rows) out.push(`${base}_created{${lbl}${extra}} ${createdS.toExponential()}`);
  };
  gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', running);
  gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', waiting);
  counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', [['', c.prefixQueries]]);
  counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', [['', c.prefixHits]]);
  counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', [['', c.promptTokens]]);
  counter('vllm:generation_tokens', 'Number of generation tokens processed.', [['', c.generationTokens]]);
  counter('vllm:request_success', 'Count of successfully processed requests.', [
    [',finished_reason="stop"', c.successStop],
    [',finished_reason="length"', c.successLength],
  ]);
  out.push(
    '# HELP fpsweep_standin_busy_seconds_total Stand-in only: seconds with prefill work on the modelled GPU.',
    '# TYPE fpsweep_standin_busy_seconds_total counter',
    `fpsweep_standin_busy_seconds_total{${lbl}} ${pyFloat(busyS)}`,
  );
  if (fe) {
    const own = (name: string, help: string, v: number) =>
      out.push(`# HELP ${name} Stand-in only: ${help}`, `# TYPE ${name} counter`, `${name}{${lbl}} ${pyFloat(v)}`);
    own('fpsweep_standin_frontend_busy_seconds_total', "model seconds of the API server thread's process_inputs work.", fe.threadBusyS);
    own('fpsweep_standin_media_busy_seconds_total', 'model seconds of media loading (decode), all pool threads together.', fe.mediaBusyS);
    own('fpsweep_standin_mm_cache_queries_total', 'multimodal processor cache look-ups, in items.', fe.mmQueries);
    own('fpsweep_standin_mm_cache_hits_total', 'multimodal processor cache hits, in items.', fe.mmHits);
  }
  return out.join('\n') + '\n';
}
