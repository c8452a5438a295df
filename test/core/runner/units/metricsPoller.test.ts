// Metrics: polled on every fifth tick, figures per server, a server that fails to answer keeps its last.
import { strict as assert } from 'node:assert';
import { MetricsPoller, type MetricsSource } from '../../../../src/core/runner/metricsPoller';

const BODY = 'vllm:num_requests_running{model_name="m"} 4\nvllm:num_requests_waiting{model_name="m"} 7\n';

function source(answer: () => Promise<{ status: number; text: string }>): MetricsSource & { gets: number; closed: boolean } {
  const s = { gets: 0, closed: false, get: async () => (s.gets++, answer()), close: async () => void (s.closed = true) };
  return s;
}

describe('runner unit: metrics poller', () => {
  it('polls on every fifth tick only', () => {
    const a = source(async () => ({ status: 200, text: BODY }));
    const p = new MetricsPoller([a], () => undefined);
    for (let i = 0; i < 4; i++) p.tick();
    assert.equal(a.gets, 0);
    p.tick();
    assert.equal(a.gets, 1);
  });

  it('hands on the figures of the servers that answered 200, ignores the rest, closes all', async () => {
    const ok = source(async () => ({ status: 200, text: BODY }));
    const bad = source(async () => ({ status: 503, text: '' }));
    const gone = source(async () => {
      throw new Error('ECONNREFUSED');
    });
    const seen: [number, number, number][] = [];
    const p = new MetricsPoller([bad, ok, gone], (i, f) => seen.push([i, f.running, f.waiting]));
    await p.poll();
    assert.deepEqual(seen, [[1, 4, 7]]);
    await p.close();
    assert.ok(ok.closed && bad.closed && gone.closed);
  });
});
