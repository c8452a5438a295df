// One GET /health with a hard timeout: 200 means the engine answers; anything else, or no answer, does not.
import { request } from 'undici';

export interface HealthResult {
  ok: boolean;
  detail: string;
}

export async function checkHealth(baseUrl: string, timeoutMs: number): Promise<HealthResult> {
  const url = baseUrl.replace(/\/$/, '') + '/health';
  try {
    const res = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
    await res.body.dump();
    return res.statusCode === 200 ? { ok: true, detail: '200' } : { ok: false, detail: `HTTP ${res.statusCode}` };
  } catch (err) {
    const e = err as { code?: string; message?: string; cause?: { code?: string } };
    return { ok: false, detail: e.cause?.code ?? e.code ?? e.message ?? String(err) };
  }
}
