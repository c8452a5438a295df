import { strict as assert } from 'node:assert';
import { makeRetryingFetch, safeUrl } from '../../../../../src/core/protocols/fp/returns/retryFetch';

function scripted(steps: Array<number | 'network' | 'abort'>) {
  let i = 0;
  const calls: string[] = [];
  const fetchImpl = (async (input: string | URL | Request) => {
    calls.push(String(input));
    const s = steps[Math.min(i++, steps.length - 1)];
    if (s === 'network') throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    if (s === 'abort') throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    return new Response(s === 200 ? '{}' : 'err', { status: s });
  }) as typeof fetch;
  return { fetchImpl, calls };
}

describe('retrying fetch', () => {
  const sleeps: number[] = [];
  const sleep = async (ms: number) => void sleeps.push(ms);

  it('retries network errors, 408, 429 and 5xx, then succeeds', async () => {
    const s = scripted(['network', 408, 429, 503, 200]);
    const reasons: string[] = [];
    const { fetch, stats } = makeRetryingFetch({ fetchImpl: s.fetchImpl, sleep, maxAttempts: 5, onRetry: (r) => reasons.push(r.reason) });
    const res = await fetch('http://127.0.0.1:1/x?sig=secret', { method: 'POST', body: 'b' });
    assert.equal(res.status, 200);
    assert.equal(stats.retries, 4);
    assert.deepEqual(reasons, ['network error (ECONNRESET)', 'HTTP 408', 'HTTP 429', 'HTTP 503']);
  });

  it('does not retry 400/401/403/404, nor an abort', async () => {
    for (const status of [400, 401, 403, 404]) {
      const s = scripted([status, 200]);
      const res = await makeRetryingFetch({ fetchImpl: s.fetchImpl, sleep }).fetch('http://127.0.0.1:1/x');
      assert.equal(res.status, status);
      assert.equal(s.calls.length, 1);
    }
    const s = scripted(['abort', 200]);
    await assert.rejects(makeRetryingFetch({ fetchImpl: s.fetchImpl, sleep }).fetch('http://127.0.0.1:1/x'), /aborted/);
    assert.equal(s.calls.length, 1);
  });

  it('is bounded: after maxAttempts the last answer (or error) goes to the caller; backoff grows and is capped', async () => {
    sleeps.length = 0;
    const s = scripted([500]);
    const res = await makeRetryingFetch({ fetchImpl: s.fetchImpl, sleep, maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 }).fetch('http://127.0.0.1:1/x');
    assert.equal(res.status, 500);
    assert.equal(s.calls.length, 4);
    assert.equal(sleeps.length, 3);
    assert.ok(sleeps[0] >= 50 && sleeps[0] <= 100 && sleeps.every((ms) => ms <= 250), sleeps.join(','));
    const n = scripted(['network']);
    await assert.rejects(makeRetryingFetch({ fetchImpl: n.fetchImpl, sleep, maxAttempts: 3 }).fetch('http://127.0.0.1:1/x'), /fetch failed/);
    assert.equal(n.calls.length, 3);
  });

  it('prints URLs without their query (presigned signatures)', () => {
    assert.equal(safeUrl('https://s3.example/obj?X-Amz-Signature=abc'), 'https://s3.example/obj');
  });
});
