// HTTP client for one vLLM endpoint (undici): a keep-alive pool, timeouts, bounded retries with
// exponential backoff + jitter on 408/429/5xx and connection errors, and failures classified into
// SPEC §4 kinds. A 400 is never retried: resending the same frames cannot change vLLM's answer.
import { Pool, errors as undiciErrors } from 'undici';
import { z } from 'zod';
import { isContextRefusal } from './vllmMessages';
import type { ChatRequestBody } from './chatRequest';
import { parseBoundedJson } from '../io/boundedJson';

export interface Endpoint {
  /** Base URL, e.g. http://127.0.0.1:8011 (no /v1). */
  url: string;
  apiKey: string | null;
}

export interface ClientOptions {
  /** Sockets kept open to the server; the scheduler's concurrency for it is a good value. */
  connections?: number;
  connectTimeoutMs?: number;
  /** Time to the response headers: covers queueing + prefill of a 1000-frame request on a busy server. */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Attempts after the first (so maxRetries 4 → at most 5 sends). */
  maxRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatSuccess {
  ok: true;
  text: string;
  usage: Usage;
  /** Seconds from sending the successful attempt to its complete answer. */
  latency_s: number;
  finishReason: string | null;
  attempts: number;
  /** The prompt's token ids when the request asked for them (`return_token_ids`), else null. */
  promptTokenIds?: number[] | null;
}

/** SPEC §4 failure kinds this layer can tell apart. */
export type ChatFailureKind = 'context' | 'request' | 'server_down';

export interface ChatFailure {
  ok: false;
  kind: ChatFailureKind;
  message: string;
  attempts: number;
  /** Last HTTP status, or null when no answer came (connection error, timeout, abort). */
  status: number | null;
}

export type ChatResult = ChatSuccess | ChatFailure;

const CompletionSchema = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: z.string().nullable() }).passthrough(), finish_reason: z.string().nullable().optional() }).passthrough())
    .min(1),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }).passthrough(),
  /** With `return_token_ids: true` (vllm/entrypoints/openai protocol ChatCompletionResponse.prompt_token_ids). */
  prompt_token_ids: z.array(z.number().int()).nullish(),
});

const ErrorSchema = z.object({ error: z.union([z.object({ message: z.string() }).passthrough(), z.string()]) }).passthrough();

/** vLLM's message from an error body (nested 0.10.1+, flat before, or the middleware's string). */
export function errorMessage(status: number, bodyText: string): string {
  try {
    const json = parseBoundedJson(bodyText) as { message?: unknown; detail?: unknown } | null;
    const nested = ErrorSchema.safeParse(json);
    if (nested.success) return typeof nested.data.error === 'string' ? nested.data.error : nested.data.error.message;
    if (json && typeof json.message === 'string') return json.message;
    if (json && typeof json.detail === 'string') return json.detail;
  } catch {
    /* not JSON */
  }
  return bodyText.trim().slice(0, 500) || `HTTP ${status}`;
}

function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Is this a transport failure (the server may be down or restarting) rather than a bug of ours? */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  if (err instanceof undiciErrors.ConnectTimeoutError || err instanceof undiciErrors.SocketError) return true;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) return true;
  if (err instanceof undiciErrors.ClientDestroyedError || err instanceof undiciErrors.ClientClosedError) return false;
  return CONNECTION_CODES.has(e?.code ?? '') || CONNECTION_CODES.has(e?.cause?.code ?? '') || (e?.code ?? '').startsWith('UND_ERR_SOCKET');
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return `${e?.code ? e.code + ': ' : ''}${e?.message ?? String(err)}`;
}

export class VllmClient {
  private readonly pool: Pool;
  private readonly opts: Required<ClientOptions>;

  constructor(
    readonly endpoint: Endpoint,
    options: ClientOptions = {},
  ) {
    this.opts = {
      connections: options.connections ?? 32,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: options.headersTimeoutMs ?? 30 * 60_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 5 * 60_000,
      maxRetries: options.maxRetries ?? 4,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 20_000,
    };
    this.pool = new Pool(new URL(endpoint.url).origin, {
      connections: this.opts.connections,
      connectTimeout: this.opts.connectTimeoutMs,
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: this.opts.bodyTimeoutMs,
      // Below uvicorn's 5 s idle close, so we never write into a socket the server is closing.
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 4_000,
    });
  }

  private headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = {};
    if (json) h['content-type'] = 'application/json';
    if (this.endpoint.apiKey) h.authorization = `Bearer ${this.endpoint.apiKey}`;
    return h;
  }

  private path(p: string): string {
    return new URL(this.endpoint.url).pathname.replace(/\/$/, '') + p;
  }

  /** Backoff before retry `n` (1-based): exponential, capped, with full jitter; Retry-After wins if longer. */
  private delayMs(n: number, retryAfter: string | undefined): number {
    const exp = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (n - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    const ra = retryAfter !== undefined ? Number(retryAfter) * 1000 : NaN;
    return Number.isFinite(ra) ? Math.min(this.opts.maxDelayMs, Math.max(jittered, ra)) : jittered;
  }

  /** `body` is any chat-completions body (the sweep sends ChatRequestBody; AVTime its own two kinds). */
  async chat(body: ChatRequestBody | object, signal?: AbortSignal): Promise<ChatResult> {
    const payload = JSON.stringify(body);
    let attempts = 0;
    let last: ChatFailure = { ok: false, kind: 'server_down', message: 'not sent', attempts: 0, status: null };
    for (;;) {
      if (signal?.aborted) return { ...last, kind: 'server_down', message: `aborted: ${describe(signal.reason)}`, attempts };
      attempts++;
      const t0 = performance.now();
      let retryAfter: string | undefined;
      try {
        const res = await this.pool.request({
          method: 'POST',
          path: this.path('/v1/chat/completions'),
          headers: this.headers(true),
          body: payload,
          signal,
        });
        const text = await res.body.text();
        if (res.statusCode === 200) {
          const parsed = CompletionSchema.safeParse(parseBoundedJson(text));
          if (!parsed.success) {
            return { ok: false, kind: 'request', message: `unexpected completion body: ${parsed.error.issues[0]?.message}`, attempts, status: 200 };
          }
          const c = parsed.data.choices[0];
          return {
            ok: true,
            text: c.message.content ?? '',
            usage: {
              prompt_tokens: parsed.data.usage.prompt_tokens,
              completion_tokens: parsed.data.usage.completion_tokens,
              total_tokens: parsed.data.usage.total_tokens,
            },
            latency_s: (performance.now() - t0) / 1000,
            finishReason: c.finish_reason ?? null,
            attempts,
            promptTokenIds: parsed.data.prompt_token_ids ?? null,
          };
        }
        const message = errorMessage(res.statusCode, text);
        if (res.statusCode === 400 && isContextRefusal(message)) {
          return { ok: false, kind: 'context', message, attempts, status: 400 };
        }
        if (!retryableStatus(res.statusCode)) return { ok: false, kind: 'request', message, attempts, status: res.statusCode };
        const kind: ChatFailureKind = [502, 503, 504].includes(res.statusCode) ? 'server_down' : 'request';
        last = { ok: false, kind, message: `HTTP ${res.statusCode}: ${message}`, attempts, status: res.statusCode };
        const ra = res.headers['retry-after'];
        retryAfter = Array.isArray(ra) ? ra[0] : ra;
      } catch (err) {
        if (signal?.aborted) return { ok: false, kind: 'server_down', message: `aborted: ${describe(signal.reason)}`, attempts, status: null };
        if (!isConnectionError(err)) return { ok: false, kind: 'request', message: describe(err), attempts, status: null };
        last = { ok: false, kind: 'server_down', message: describe(err), attempts, status: null };
      }
      if (attempts > this.opts.maxRetries) return last;
      await sleep(this.delayMs(attempts, retryAfter), signal);
    }
  }

  /** GET a path; used for /health, /v1/models and /metrics. */
  async get(p: string, timeoutMs = 5_000): Promise<{ status: number; text: string }> {
    const res = await this.pool.request({
      method: 'GET',
      path: this.path(p),
      headers: this.headers(false),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
