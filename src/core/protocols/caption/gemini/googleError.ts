import { parseBoundedJson } from '../../../io/boundedJson';
// A Gemini API error as the API gives it and the SDK passes it on (SPEC-AVTIME-DATA §3b): the SDK throws
// `ApiError {status, message}` where `message` is the error body as JSON (throwErrorIfNotOK in
// node_modules/@google/genai/dist/node/index.cjs). The body is Google's error model
// (https://google.aip.dev/193, https://ai.google.dev/gemini-api/docs/troubleshooting):
// `{"error": {"code", "message", "status", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
// "retryDelay": "37s"}, {"@type": "…ErrorInfo", "reason": "API_KEY_INVALID"}]}}`. What to do with each is decided
// here, purely: a 429 waits as its RetryInfo says (else backs off), 500/503/504 are retried within the budget, a
// refused key stops the run (401, 403, or 400 with reason API_KEY_INVALID: a wrong key is 400, not 401), anything
// else (400 INVALID_ARGUMENT, FAILED_PRECONDITION, 404) is final for the clip.

export interface GoogleError {
  /** The HTTP status, or null when no answer came (connection refused, reset, timeout). */
  httpStatus: number | null;
  /** The canonical code name (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`…), when the body has one. */
  status: string | null;
  message: string;
  /** RetryInfo's retryDelay in ms, when the body has one. */
  retryDelayMs: number | null;
  /** ErrorInfo reasons (`API_KEY_INVALID`…). */
  reasons: string[];
  /** When no answer came: the system's code for why (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`…) and its words. */
  cause?: { code: string | null; message: string } | null;
}

/** `unreachable`: nothing answers at the endpoint (the connection refused, the host unknown): no retry can help, the
 * run stops at once naming the URL. */
export type ErrorAction = 'wait' | 'retry' | 'final' | 'key' | 'unreachable';

/** Why fetch got no answer: undici's `TypeError('fetch failed')` carries the system error as its cause (an
 * AggregateError when every address was tried). */
function causeOf(err: unknown): { code: string | null; message: string } | null {
  let c = (err as { cause?: unknown })?.cause as { code?: unknown; message?: unknown; errors?: unknown } | undefined;
  if (!c || typeof c !== 'object') return null;
  if (c.code === undefined && Array.isArray(c.errors) && c.errors.length) c = c.errors[0] as typeof c;
  return { code: typeof c.code === 'string' ? c.code : null, message: typeof c.message === 'string' ? c.message : String(c) };
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND']);

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

/** A protobuf Duration in its JSON form ("37s", "1.5s") as ms; null when it is not one. */
export function durationMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Math.round(Number(m[1]) * 1000) : null;
}

/** What a thrown error says, read from the SDK's ApiError (status + JSON body) or any other Error. */
export function readGoogleError(err: unknown): GoogleError {
  const e = err as { status?: unknown; message?: unknown; name?: unknown };
  const httpStatus = typeof e?.status === 'number' ? e.status : null;
  const text = typeof e?.message === 'string' ? e.message : String(err);
  type Body = { error?: { code?: unknown; message?: unknown; status?: unknown; details?: unknown } };
  let body: Body | null = null;
  try {
    const parsed = parseBoundedJson(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Body;
  } catch {
    body = null;
  }
  const inner = body?.error;
  const details = Array.isArray(inner?.details) ? (inner.details as Record<string, unknown>[]) : [];
  const retry = details.find((d) => d?.['@type'] === RETRY_INFO);
  return {
    httpStatus: httpStatus ?? (typeof inner?.code === 'number' ? inner.code : null),
    status: typeof inner?.status === 'string' ? inner.status : null,
    message: typeof inner?.message === 'string' ? inner.message : text,
    retryDelayMs: retry ? durationMs(retry.retryDelay) : null,
    reasons: details.map((d) => d?.reason).filter((r): r is string => typeof r === 'string'),
    cause: httpStatus === null && !inner ? causeOf(err) : null,
  };
}

export function errorAction(e: GoogleError): ErrorAction {
  const s = e.httpStatus;
  if (s === 401 || s === 403 || e.status === 'UNAUTHENTICATED' || e.status === 'PERMISSION_DENIED') return 'key';
  if (e.reasons.includes('API_KEY_INVALID')) return 'key';
  if (s === 429 || e.status === 'RESOURCE_EXHAUSTED') return 'wait';
  if (s === null && e.cause?.code && UNREACHABLE.has(e.cause.code)) return 'unreachable';
  if (s === null || s === 408 || s === 500 || s === 502 || s === 503 || s === 504) return 'retry';
  return 'final';
}

/** `HTTP 429 RESOURCE_EXHAUSTED: <Google's words>` (or the client's words when no answer came). */
export function googleErrorText(e: GoogleError): string {
  const head = e.httpStatus !== null ? `HTTP ${e.httpStatus}${e.status ? ` ${e.status}` : ''}` : 'no answer';
  return `${head}: ${e.message}${e.cause ? ` (${e.cause.message})` : ''}`;
}
