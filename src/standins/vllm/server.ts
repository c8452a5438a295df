// The stand-in vLLM's HTTP side: routes, auth, faults, token accounting, latency, logs.
import * as fs from 'node:fs';
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { predictPromptTokens, qwenImageTokens } from '../../core/protocols/fp/rules/qwenTokens';
import * as msg from '../../core/serving/vllmMessages';
import type { ServeArgs } from './args';
import type { StandinEnv } from './config';
import { Engine } from './engine';
import { PrefixCache, contentKey, type Segment } from './prefixCache';
import { newCounters, renderMetrics } from './metrics';
import { FrontEndRuntime, mediaLoadingThreads } from './frontEndRuntime';
import { ModelledEngine } from './modelledEngine';
import { loadImages, parseChatBody, RequestRefusal, type LoadedImage } from './request';
import { replyTokens, standinAnswer } from './answer';
import { logLine } from './log';
import { readAvtimeKnobs, standinRole } from './avtime/knobs';
import { avtimeModel } from './avtime/model';
import { standinVersion } from './version';

export interface StandinServer {
  port: number;
  close(): Promise<void>;
}

export interface StandinHooks {
  /** Called instead of process.exit when a crash fault fires (tests running in-process). */
  onCrash?: (code: number) => void;
}

/** One inspect line per chat request (FPSWEEP_STANDIN_INSPECT). */
export interface InspectRecord {
  ts: string;
  status: number;
  model: string;
  n_images: number;
  images: Array<{ width: number; height: number; bytes: number; sha1: string; source: 'data' | 'file'; path: string | null }>;
  prompt_text: string;
  prompt_tokens: number | null;
  cached_tokens: number | null;
  max_tokens: number | null;
  temperature: number | null;
  reply: string | null;
  latency_s: number | null;
  error: string | null;
}

const MAX_BODY_BYTES = 1 << 30;

export async function startStandinServer(args: ServeArgs, env: StandinEnv, hooks: StandinHooks = {}): Promise<StandinServer> {
  const engine = new Engine(args.maxNumSeqs, (['parallel', 'shared', 'fcfs'] as const)[env.latency.shared]);
  const cache = new PrefixCache(env.faults.cacheTokens);
  // vLLM 0.11's costs (./cost/): the front end is always accounted; under model=1 it and the engine's steps are waited.
  const modelled = env.latency.model === 1;
  const frontEnd = new FrontEndRuntime(args.mmProcessorCacheGb, mediaLoadingThreads(), modelled, env.latency.speed);
  const stepEngine = modelled
    ? new ModelledEngine({ maxNumSeqs: args.maxNumSeqs, maxNumBatchedTokens: args.maxNumBatchedTokens, gpuScale: env.latency.gpuScale }, env.latency.speed)
    : null;
  const gpu = stepEngine ?? engine;
  const counters = newCounters();
  const createdS = Date.now() / 1000;
  let chatCount = 0;
  // The served model's name picks the model played: Frames × Pixels' VL model, or AVTime's target or judge.
  const role = standinRole(args);
  const avtime = role === 'fp' ? null : avtimeModel(role, args, readAvtimeKnobs());
  let crashed = false;

  const inspect = (r: InspectRecord) => {
    if (env.inspectFile) fs.appendFileSync(env.inspectFile, JSON.stringify(r) + '\n');
  };

  const crash = () => {
    crashed = true;
    const lines = env.faults.crashOom
      ? [
          'EngineCore encountered a fatal error.',
          'Traceback (most recent call last):',
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core',
          'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. ' +
            'GPU 0 has a total capacity of 178.35 GiB of which 1.21 GiB is free. ' +
            'Of the allocated memory 160.02 GiB is allocated by PyTorch.',
          'AsyncLLM output_handler failed.',
          'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.',
        ]
      : [
          'EngineCore encountered a fatal error.',
          'vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.',
        ];
    for (const l of lines) logLine('ERROR', 'core.py:710', l, process.stderr);
    if (env.crashOnceFile) fs.writeFileSync(env.crashOnceFile, `crashed at request ${chatCount}\n`);
    if (hooks.onCrash) hooks.onCrash(1);
    else process.exit(1);
  };

  const server = http.createServer((req, res) => {
    // uvicorn's access log line.
    res.on('finish', () => {
      const addr = `${req.socket.remoteAddress ?? '-'}:${req.socket.remotePort ?? 0}`;
      process.stdout.write(`INFO:     ${addr} - "${req.method} ${req.url} HTTP/1.1" ${res.statusCode} ${http.STATUS_CODES[res.statusCode] ?? ''}\n`);
    });
    handle(req, res).catch((err) => {
      logLine('ERROR', 'api_server.py:1', `Exception in ASGI application: ${(err as Error).stack ?? err}`, process.stderr);
      if (!res.headersSent) sendJson(res, 500, msg.errorBody('Internal Server Error', 500, 'InternalServerError'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000; // uvicorn's default
  server.requestTimeout = 0; // long prefills must not be cut by Node's 5-minute default

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    // vllm/entrypoints/openai/api_server.py `health`: 200 with an empty body while the engine is alive,
    // 503 (empty) once it is dead (EngineDeadError); no key needed (the middleware guards /v1 only).
    if (req.method === 'GET' && url.pathname === '/health') {
      res.writeHead(crashed ? 503 : 200, { 'content-length': '0' }).end();
      return;
    }
    if (crashed) {
      res.destroy();
      return;
    }
    // vllm/entrypoints/openai/api_server.py AuthenticationMiddleware: paths under /v1 only, OPTIONS exempt.
    if (req.method !== 'OPTIONS' && url.pathname.startsWith('/v1') && args.apiKey !== null && !authorized(req, args.apiKey)) {
      sendJson(res, 401, msg.UNAUTHORIZED_BODY);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      const text = renderMetrics(args.servedModelName, gpu.running, gpu.waiting, counters, createdS, gpu.busySeconds, frontEnd.counters);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text);
      return;
    }
    // show_version: {"version": VLLM_VERSION}, no key needed (outside /v1); the release this server plays.
    if (req.method === 'GET' && url.pathname === '/version') {
      sendJson(res, 200, { version: standinVersion(role) });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      sendJson(res, 200, modelsBody(args, createdS));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      await chat(req, res);
      return;
    }
    sendJson(res, 404, { detail: 'Not Found' });
  }

  async function chat(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    chatCount++;
    const n = chatCount;
    const { status503Every } = env.faults;
    const crashAfter = avtime?.crashAfter || env.faults.crashAfter;
    if (crashAfter > 0 && n > crashAfter && !(env.crashOnceFile && fs.existsSync(env.crashOnceFile))) {
      crash();
      res.destroy();
      return;
    }
    const raw = await readBody(req);
    // A test's pause: the run cannot finish while the file is there, so a kill lands with work left.
    while (env.holdFile && fs.existsSync(env.holdFile)) await new Promise((r) => setTimeout(r, 20));
    if (status503Every > 0 && n % status503Every === 0) {
      sendJson(res, 503, msg.errorBody('Service Unavailable (stand-in fault: every ' + status503Every + 'th request)', 503, 'ServiceUnavailableError'));
      return;
    }
    const { status400Every, faultsFrom } = env.faults;
    if (status400Every > 0 && n >= faultsFrom && n % status400Every === 0) {
      // Our own words (no vLLM rule is imitated); the body is vLLM's nested ErrorResponse (protocol.py).
      sendJson(res, 400, msg.errorBody(`Bad request (stand-in fault: 400 to every ${status400Every === 1 ? '' : `${status400Every}th `}request)`));
      return;
    }
    const t0 = performance.now();
    const rec: InspectRecord = {
      ts: new Date().toISOString(),
      status: 0,
      model: '',
      n_images: 0,
      images: [],
      prompt_text: '',
      prompt_tokens: null,
      cached_tokens: null,
      max_tokens: null,
      temperature: null,
      reply: null,
      latency_s: null,
      error: null,
    };
    try {
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch (e) {
        throw new RequestRefusal(400, `JSON decode error: ${(e as Error).message}`);
      }
      if (avtime) {
        await avtimeChat(json, rec, t0, res);
        return;
      }
      const parsed = parseChatBody(json, args.servedModelName);
      const { body, promptText } = parsed;
      rec.model = body.model;
      rec.prompt_text = promptText;
      rec.n_images = parsed.imageUrls.length;
      rec.temperature = body.temperature ?? null;
      const requestedMax = body.max_completion_tokens ?? body.max_tokens ?? null;
      rec.max_tokens = requestedMax;
      const refusedFile = env.faults.refuseFileUrls && n >= faultsFrom ? parsed.imageUrls.find((u) => u.startsWith('file:')) : undefined;
      if (refusedFile) {
        // vllm/multimodal/utils.py MediaConnector._load_file_url: the resolved file is not under the allowed
        // path (as for a package reached through a symlink), reported through serving_chat.py's " None" suffix.
        const p = fileURLToPath(refusedFile);
        throw new RequestRefusal(400, msg.preprocessingMessage(msg.fileOutsideAllowedPath(p, args.allowedLocalMediaPath ?? '')));
      }
      const images: LoadedImage[] = await loadImages(parsed.imageUrls, args.limitImages, args.allowedLocalMediaPath);
      const imageKeys = images.map((i) => i.key);
      rec.images = images.map((i, k) => ({ width: i.width, height: i.height, bytes: i.size, sha1: imageKeys[k], source: i.source, path: i.path }));
      if (env.inspectImagesDir) {
        fs.mkdirSync(env.inspectImagesDir, { recursive: true });
        for (const [k, img] of images.entries()) {
          const f = `${env.inspectImagesDir}/${imageKeys[k]}.jpg`;
          if (!fs.existsSync(f)) fs.writeFileSync(f, await img.bytes());
        }
      }
      const dims = images.map((i) => ({ width: i.width, height: i.height }));
      const promptTokens = predictPromptTokens(dims, promptText);
      rec.prompt_tokens = promptTokens;
      const L = args.maxModelLen;
      if (images.length === 0 && requestedMax !== null && promptTokens + requestedMax > L) {
        // Text-only prompts meet the OpenAI layer's check with their real size (vllm/entrypoints/openai/serving_engine.py _validate_input).
        throw new RequestRefusal(400, msg.preprocessingMessage(msg.contextLengthExceeded(promptTokens, requestedMax, L)));
      }
      // vllm/v1/engine/processor.py _validate_model_input: strictly longer than max_model_len is refused.
      if (promptTokens > L) throw new RequestRefusal(400, msg.decoderPromptTooLong(promptTokens, L));

      const segments: Segment[] = images.map((img, k) => ({ key: imageKeys[k], tokens: qwenImageTokens(img.width, img.height) }));
      const imageTokens = segments.reduce((s, x) => s + x.tokens, 0);
      segments.push({ key: contentKey('text\0' + promptText), tokens: promptTokens - imageTokens });
      // The API thread's process_inputs (hashing or the part's uuid, the processor on cache misses).
      await frontEnd.process(images.map((img, k) => ({ key: imageKeys[k], width: img.width, height: img.height, uuid: parsed.imageUuids[k] })));
      const reply = standinAnswer(promptText, imageKeys, dims);
      let hit = 0;
      if (stepEngine) {
        const lookup = () => {
          const r = cache.lookupAndInsert(segments, promptTokens);
          hit = r.hitTokens;
          return { cachedTokens: r.hitTokens, cachedFrames: Math.min(r.hitSegments, images.length) };
        };
        await stepEngine.run({
          promptTokens,
          frames: images.length,
          outputTokens: Math.min(replyTokens(reply), Math.max(1, L - promptTokens), requestedMax ?? L),
          lookup,
        });
      } else {
        await engine.run({
          workS: 0, // set in onStart once the cache is consulted
          fixedS: env.latency.a,
          onStart() {
            hit = cache.lookupAndInsert(segments, promptTokens).hitTokens;
            this.workS = env.latency.b * (promptTokens - hit);
          },
        });
      }
      // A prompt of exactly L tokens still gets one token: vllm/v1/engine/processor.py refuses only
      // prompt_len > max_model_len, and vllm/v1/core/sched/utils.py check_stop ends a request once
      // num_tokens >= max_model_len, which it checks after each sampled token.
      const room = Math.max(1, L - promptTokens);
      const wanted = replyTokens(reply);
      const limit = Math.min(room, requestedMax ?? room);
      const completion = Math.min(wanted, limit);
      // 'stop' needs the end-of-sequence token sampled within the limit too (sched/utils.py check_stop).
      const finish = wanted < limit ? 'stop' : 'length';
      const content = completion >= wanted ? reply : reply.split(' ').slice(0, Math.max(0, completion)).join(' ');
      counters.promptTokens += promptTokens;
      counters.generationTokens += completion;
      counters.prefixQueries += promptTokens;
      counters.prefixHits += hit;
      if (finish === 'stop') counters.successStop++;
      else counters.successLength++;
      const latency = (performance.now() - t0) / 1000;
      Object.assign(rec, { status: 200, cached_tokens: hit, reply: content, latency_s: latency });
      inspect(rec);
      sendJson(res, 200, completionBody(args.servedModelName, content, finish, promptTokens, completion));
    } catch (err) {
      if (!(err instanceof RequestRefusal)) throw err;
      Object.assign(rec, { status: err.status, error: err.message, latency_s: (performance.now() - t0) / 1000 });
      inspect(rec);
      sendJson(res, err.status, msg.errorBody(err.message, err.status, err.type));
    }
  }

  /** An AVTime target or judge request: the same latency model, counters and inspect line as above. */
  async function avtimeChat(json: unknown, rec: InspectRecord, t0: number, res: http.ServerResponse): Promise<void> {
    const r = await avtime!.reply(json);
    Object.assign(rec, {
      model: r.model,
      prompt_text: r.promptText,
      max_tokens: r.maxTokens,
      temperature: r.temperature,
      prompt_tokens: r.promptTokens,
      cached_tokens: 0,
    });
    await engine.run({ workS: env.latency.b * r.promptTokens, fixedS: env.latency.a });
    counters.promptTokens += r.promptTokens;
    counters.generationTokens += r.completionTokens;
    counters.prefixQueries += r.promptTokens;
    if (r.finish === 'stop') counters.successStop++;
    else counters.successLength++;
    Object.assign(rec, { status: 200, reply: r.content, latency_s: (performance.now() - t0) / 1000 });
    inspect(rec);
    // The AVTime roles play a release after #33402 (v0.16): the message's field is `reasoning`, not reasoning_content.
    const message = { reasoning_content: undefined, reasoning: r.reasoning };
    const body = completionBody(args.servedModelName, r.content, r.finish, r.promptTokens, r.completionTokens, message);
    // return_token_ids (the pinned release's ChatCompletionResponse.prompt_token_ids): the AVTime pre-flight counts them.
    sendJson(res, 200, r.promptTokenIds ? { ...body, prompt_token_ids: r.promptTokenIds } : body);
  }

  // Engine stats line every 10 s while there is traffic, like vLLM's LoggingStatLogger.
  let lastPrompt = 0;
  let lastGen = 0;
  let lastQ = 0;
  let lastH = 0;
  const statsTimer = setInterval(() => {
    const dp = counters.promptTokens - lastPrompt;
    const dg = counters.generationTokens - lastGen;
    if (dp === 0 && dg === 0 && engine.running === 0 && engine.waiting === 0) return;
    const dq = counters.prefixQueries - lastQ;
    const dh = counters.prefixHits - lastH;
    [lastPrompt, lastGen, lastQ, lastH] = [counters.promptTokens, counters.generationTokens, counters.prefixQueries, counters.prefixHits];
    logLine(
      'INFO',
      'loggers.py:127',
      `Engine 000: Avg prompt throughput: ${(dp / 10).toFixed(1)} tokens/s, ` +
        `Avg generation throughput: ${(dg / 10).toFixed(1)} tokens/s, Running: ${engine.running} reqs, Waiting: ${engine.waiting} reqs, ` +
        `GPU KV cache usage: ${((100 * cache.sizeTokens) / Math.max(1, env.faults.cacheTokens)).toFixed(1)}%, ` +
        `Prefix cache hit rate: ${dq ? ((100 * dh) / dq).toFixed(1) : '0.0'}%`,
      process.stdout,
    );
  }, 10_000);
  statsTimer.unref();

  // vllm/entrypoints/openai/api_server.py create_server_socket binds the port but listens only once the
  // engine is up (uvicorn starts after the model loads): while loading, connections are refused.
  logLine('INFO', 'gpu_model_runner.py:2602', `Starting to load model ${args.model}...`, process.stdout);
  if (env.faults.startupDelayMs > 0) await new Promise((r) => setTimeout(r, env.faults.startupDelayMs));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(args.port, args.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logLine('INFO', 'api_server.py:1971', `Starting vLLM API server 0 on http://${args.host}:${port}`, process.stdout);
  process.stdout.write(
    `INFO:     Started server process [${process.pid}]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.\n`,
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(statsTimer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The header must be exactly `Bearer <key>` (vllm/entrypoints/openai/api_server.py AuthenticationMiddleware). */
function authorized(req: http.IncomingMessage, key: string): boolean {
  return req.headers.authorization === `Bearer ${key}`;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function modelsBody(args: ServeArgs, createdS: number) {
  const created = Math.floor(createdS);
  return {
    object: 'list',
    data: [
      {
        id: args.servedModelName,
        object: 'model',
        created,
        owned_by: 'vllm',
        root: args.model,
        parent: null,
        max_model_len: args.maxModelLen,
        permission: [
          {
            id: `modelperm-${randomUUID().replace(/-/g, '')}`,
            object: 'model_permission',
            created,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: '*',
            group: null,
            is_blocking: false,
          },
        ],
      },
    ],
  };
}

function completionBody(model: string, content: string, finish: string, prompt: number, completion: number, message: Record<string, unknown> = {}) {
  return {
    id: `chatcmpl-${randomUUID().replace(/-/g, '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          annotations: null,
          audio: null,
          function_call: null,
          tool_calls: [],
          reasoning_content: null,
          ...message,
        },
        logprobs: null,
        finish_reason: finish,
        stop_reason: null,
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion, prompt_tokens_details: null },
    prompt_logprobs: null,
    kv_transfer_params: null,
  };
}
