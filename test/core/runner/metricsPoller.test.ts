// Metrics: polled on every fifth tick, figures per server, a server that fails to answer keeps its last.
import { strict as assert } from 'node:assert';
import { MetricsPoller, type MetricsSource } from '../../../src/core/runner/metricsPoller';

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

describe('runner unit: metrics poller windows', () => {
  it('measures from the window start scrape: samples count later scrapes, the start scrape is the baseline', async () => {
    let running = 0;
    let prompt = 100;
    const page = () => ({ status: 200, text: `vllm:num_requests_running{model_name="m"} ${running}\nvllm:prompt_tokens_total{model_name="m"} ${prompt}\n` });
    const a = source(async () => page());
    let now = 1000;
    const p = new MetricsPoller(
      [a],
      () => undefined,
      5,
      () => now,
    );
    await p.startWindow();
    [running, prompt, now] = [2, 350, 3000];
    await p.poll();
    [running, prompt, now] = [0, 400, 5000];
    await p.poll();
    const [w] = p.engineWindows();
    assert.deepEqual(w.samples, { total: 2, busy: 1, runningSum: 2, waitingSum: 0 });
    assert.deepEqual([w.first?.promptTokens, w.last?.promptTokens, w.startedAt, w.lastAt], [100, 400, 1000, 5000]);
  });
});
