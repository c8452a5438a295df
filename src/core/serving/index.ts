// Serving layer (SPEC §5): the stand-in vLLM, the launcher and the HTTP client.
//
// LAUNCHER — launcher.ts
//   launchServerGroups({servers: ServerSpec[] {id, gpus, port, args ('serve …'), logFile}, places {logsDir,
//                  launchParams, stateDir}, vllmBin?, env?, startTimeoutMs?, mkdirs?, contextTokens, contextAdvice?,
//                  oomAdvice?, intervalMs?, failThreshold?, healthTimeoutMs?, maxRestarts?, killGraceMs?, log?}) → Fleet
//     The run type's `serve …` lines, each started as `<vllmBin> <args>` (default $VLLM_BIN, else vllm) with
//     CUDA_VISIBLE_DEVICES = its GPUs and a fresh random key in VLLM_API_KEY (vLLM reads it when --api-key is
//     absent, so the key is in no command line and no log). Each launch line is appended to places.launchParams
//     (`VLLM_API_KEY=<redacted>`), output to its logFile; servers a killed run left (servers.json in
//     places.stateDir) are stopped first. Resolves when every /health answers 200. Throws ContextLengthError
//     (vLLM's KV-cache refusal found in the log: the run must stop; the context is never lowered) or LaunchError
//     (exit, timeout, port in use); either way every server it started is stopped first.
//     Frames × Pixels' lines (one server per GPU: `serve <model> --revision … --max-model-len 65536
//     --limit-mm-per-prompt '{"image": 1024}' --max-num-seqs S --gpu-memory-utilization U --port 8011+i --host
//     127.0.0.1 --allowed-local-media-path <frame store>`) are protocols/fp/serving/launchServers.ts's.
//   useEndpoints(urls, {apiKey? (default env FPSWEEP_API_KEY, else none), log?, intervalMs?, …}) → Fleet
//     Servers running elsewhere: watched, never started, restarted or stopped. Throws LaunchError
//     when none answers /health.
//   Fleet: handles: ServerHandle[] {id ('gpu0' | url), gpu, url (base, no /v1), apiKey, state, restarts,
//     pid, logFile, launchLine, upSignal}; on('state', ServerStateEvent); stop().
//   ServerStateEvent {id, gpu, url, state, previous, message, oom, restarts, at}; states:
//     starting → up                      launched server answered /health
//     up → restarting → up               process died, or /health failed failThreshold polls in a row;
//                                        `oom` when this incarnation's log shows CUDA out of memory
//                                        (the message then adds the run type's oomAdvice)
//     up|restarting → down               restart budget used up, or a restart refused the context;
//                                        for --endpoints: unhealthy (and back to up when it answers)
//     * → down                           fleet.stop()
//   `upSignal` is aborted the moment a server leaves `up`: pass it to client.chat so in-flight
//   requests end at once (kind 'server_down') and the runner re-queues them elsewhere.
//
// CLIENT — client.ts, chatRequest.ts
//   buildChatRequest({model, promptText, images: ({jpeg: Buffer} | {fileUrl: 'file://…'})[], decoding: {temperature, maxTokens}})
//     → body: one user message, image_url parts in order then the text, with the caller's decoding.
//   new VllmClient({url, apiKey}, {connections?, connectTimeoutMs?, headersTimeoutMs?, bodyTimeoutMs?,
//     maxRetries? (4), baseDelayMs? (500), maxDelayMs? (20 000)}) — one keep-alive undici Pool.
//   client.chat(body, signal?) → ChatResult, never throws:
//     {ok: true, text, usage: {prompt_tokens, completion_tokens, total_tokens}, latency_s, finishReason, attempts}
//     {ok: false, kind, message, attempts, status}:
//       'context'     400 whose message is vLLM's context-length refusal — never retried
//       'request'     other 4xx (400, 401, 404 …) — never retried; 500/408/429 after the retries
//       'server_down' connection refused/reset/timeouts, 502/503/504 after the retries, or aborted
//     Retries: exponential backoff with jitter (Retry-After honoured), at most maxRetries.
//   client.get(path) for /health, /v1/models, /metrics; client.close().
//   parseVllmMetrics(text, modelName?) → {running, waiting, promptTokens, prefixQueries, prefixHits};
//   scrapeMetrics(client, modelName?) → the same from GET /metrics, or null when it does not answer.
//
// STAND-IN — a test double, not product: src/standins/vllm/ (bundled to dist/standin-vllm.js, left
//   out of the VSIX; run as VLLM_BIN=bin/fake-vllm); its knobs are in src/standins/vllm/README.md.
export * from './chatRequest';
export * from './client';
export * from './launcher';
export * from './metrics';
export { chooseGpus, listGpus } from './gpus';
export * as vllmMessages from './vllmMessages';
