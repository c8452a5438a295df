// A fetch with bounded retries, handed to @huggingface/hub (which retries nothing): every request
// of the commit path (preupload, LFS batch, each part PUT, completion, commit) is retried on
// 408/429/5xx and on network errors, with exponential backoff (Retry-After honoured, capped).
// Bodies the library sends are strings, Blobs or ArrayBuffers, which can be sent again as they are.

export interface RetryOptions {
  /** Total attempts per request, first one included. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Told of every retry (without the request's headers: they carry the token). */
  onRetry?: (info: { url: string; method: string; attempt: number; reason: string; delayMs: number }) => void;
  /** Told of every successful response (e.g. to count uploaded bytes). */
  onResponse?: (info: { url: string; method: string; status: number; bodyBytes: number }) => void;
  sleep?: (ms: number) => Promise<void>;
  fetchImpl?: typeof fetch;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

function bodySize(body: unknown): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Blob) return body.size;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

function retryAfterMs(res: Response): number | null {
  const h = res.headers.get('retry-after');
  if (!h) return null;
  const secs = Number(h);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(h);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

/** The URL without its query string: presigned upload URLs carry signatures we do not print. */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export interface RetryStats {
  retries: number;
}

export function makeRetryingFetch(opts: RetryOptions = {}): { fetch: typeof fetch; stats: RetryStats } {
  const maxAttempts = opts.maxAttempts ?? 5;
  const base = opts.baseDelayMs ?? 1000;
  const cap = opts.maxDelayMs ?? 30000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const inner = opts.fetchImpl ?? fetch;
  const stats: RetryStats = { retries: 0 };

  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let waitHint: number | null = null;
      try {
        const res = await inner(input, init);
        if (!isRetryableStatus(res.status) || attempt >= maxAttempts) {
          if (res.ok) opts.onResponse?.({ url, method, status: res.status, bodyBytes: bodySize(init?.body) });
          return res;
        }
        reason = `HTTP ${res.status}`;
        waitHint = retryAfterMs(res);
        await res.body?.cancel().catch(() => undefined);
      } catch (err) {
        // An abort is the caller's decision, not a network failure.
        if ((err as Error)?.name === 'AbortError' || init?.signal?.aborted) throw err;
        if (attempt >= maxAttempts) throw err;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        reason = `network error (${cause?.code ?? cause?.message ?? (err as Error).message})`;
      }
      const backoff = Math.min(cap, base * 2 ** (attempt - 1));
      const delayMs = Math.min(cap, Math.max(waitHint ?? 0, backoff * (0.5 + Math.random() * 0.5)));
      stats.retries++;
      opts.onRetry?.({ url: safeUrl(url), method, attempt, reason, delayMs });
      await sleep(delayMs);
    }
  };
  return { fetch: wrapped as typeof fetch, stats };
}
