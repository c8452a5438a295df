// The one server probe (serving/serverProbe.ts) that the runs' pre-flights and doctor share, and the fleet's
// bounded wait for its servers (serving/waitUntilUp.ts).
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { UsageError } from '../../../src/core/errors';
import { assertInPin, runningVllmVersion, servedModels, serverVersion, type ProbeClient } from '../../../src/core/serving/serverProbe';
import type { Fleet } from '../../../src/core/serving/launcher';
import type { ServerState } from '../../../src/core/serving/serverState';
import type { VllmPin } from '../../../src/core/serving/vllmVersion';
import { waitUntilUp } from '../../../src/core/serving/waitUntilUp';

/** A client that answers each path from `routes` (a missing path: 404; an Error: the request fails). */
function client(routes: Record<string, { status: number; body: unknown } | Error>): ProbeClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    endpoint: { url: 'http://127.0.0.1:9' } as ProbeClient['endpoint'],
    get: async (p: string) => {
      asked.push(p);
      const r = routes[p];
      if (r instanceof Error) throw r;
      if (!r) return { status: 404, text: 'not found' } as Awaited<ReturnType<ProbeClient['get']>>;
      return { status: r.status, text: typeof r.body === 'string' ? r.body : JSON.stringify(r.body) } as Awaited<ReturnType<ProbeClient['get']>>;
    },
  };
}

const PIN: VllmPin = { runType: 'caption run', min: '0.18.0', below: null, rulesFrom: '0.18.0', why: 'audio in video' };

describe('serving: the server probe', () => {
  it('reads the served models: id, the model behind an alias, the context', async () => {
    const c = client({
      '/v1/models': { status: 200, body: { object: 'list', data: [{ id: 'alias', root: 'Org/Model', max_model_len: 65536 }, { id: 'b' }] } },
    });
    assert.deepEqual(await servedModels(c), [
      { id: 'alias', root: 'Org/Model', maxModelLen: 65536 },
      { id: 'b', root: null, maxModelLen: null },
    ]);
  });

  it('a /v1/models that is not 200, not JSON or lists no model is an error naming the server', async () => {
    await assert.rejects(servedModels(client({ '/v1/models': { status: 503, body: 'loading' } })), /127\.0\.0\.1:9\/v1\/models answered HTTP 503: loading/);
    await assert.rejects(servedModels(client({ '/v1/models': { status: 200, body: '<html>' } })), /127\.0\.0\.1:9\/v1\/models: not JSON/);
    await assert.rejects(servedModels(client({ '/v1/models': { status: 200, body: { data: [] } } })), /unexpected body/);
  });

  it("the version: GET /version's, else null when the server does not say (and nothing to ask for a given endpoint)", async () => {
    assert.equal(await serverVersion(client({ '/version': { status: 200, body: { version: '0.18.1' } } })), '0.18.1');
    assert.equal(await serverVersion(client({})), null);
    assert.equal(await serverVersion(client({ '/version': new Error('ECONNRESET') })), null);
    const given = client({});
    assert.equal(await runningVllmVersion(given, null), null);
    assert.deepEqual(given.asked, ['/version']);
    assert.equal(await runningVllmVersion(client({ '/version': { status: 200, body: { version: '0.19.0' } } }), '/no/such/vllm'), '0.19.0');
  });

  it('outside the pin (or no version) is a UsageError in the pin refusal words; inside passes', () => {
    assert.throws(
      () => assertInPin(PIN, '0.11.0', 'the target server (vllm)', 'Install one.'),
      (e: unknown) =>
        e instanceof UsageError &&
        e.message ===
          'the target server (vllm) reports vLLM 0.11.0; the caption run needs vLLM ≥ 0.18.0 (audio in video; its rules follow vLLM 0.18.0). Install one.',
    );
    assert.throws(() => assertInPin(PIN, null, 'x', 'y'), /reports no vLLM version/);
    assertInPin(PIN, '0.18.0rc1', 'x', 'y');
  });
});

describe('serving: waitUntilUp', () => {
  /** A fleet of handles with only a state; `set` changes one and emits the state event, as the launcher does. */
  function fleet(states: ServerState[]): Fleet & { set(i: number, s: ServerState): void } {
    const handles = states.map((state) => ({ state }));
    const f = Object.assign(new EventEmitter(), { handles, stop: async () => undefined }) as unknown as Fleet & { set(i: number, s: ServerState): void };
    f.set = (i, s) => {
      handles[i].state = s;
      f.emit('state', {});
    };
    return f;
  }

  it('true at once when all are up; false at once when one is down for good', async () => {
    assert.equal(await waitUntilUp(fleet(['up', 'up']), 10_000), true);
    assert.equal(await waitUntilUp(fleet(['up', 'down']), 10_000), false);
  });

  it('waits for the state events: true once the restarting server is up, and stops listening', async () => {
    const f = fleet(['up', 'restarting']);
    const waiting = waitUntilUp(f, 10_000);
    f.set(1, 'up');
    assert.equal(await waiting, true);
    assert.equal(f.listenerCount('state'), 0);
  });

  it('false when the signal aborts or the time runs out', async () => {
    const ac = new AbortController();
    const f = fleet(['restarting']);
    const waiting = waitUntilUp(f, 10_000, ac.signal);
    ac.abort();
    assert.equal(await waiting, false);
    assert.equal(await waitUntilUp(fleet(['starting']), 1), false);
  });
});
