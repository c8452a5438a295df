// The server-health policy, event by event with an explicit clock: the scheduler hears each up/down
// change once, every server failing stops the run, so does no server up for the limit, figures and
// messages reach the status, and our own shutdown is not news.
import { strict as assert } from 'node:assert';
import { ServerHealth } from '../../../src/core/runner/serverHealth';
import type { StopReason } from '../../../src/core/runner/stopReason';

function make(n: number, limit = 1000) {
  const changes: [number, boolean][] = [];
  const stops: StopReason[] = [];
  const h = new ServerHealth(
    Array.from({ length: n }, (_, i) => `http://127.0.0.1:${8000 + i}`),
    { onUpChange: (i, up) => changes.push([i, up]), onStop: (r) => stops.push(r), log: () => undefined },
    limit,
  );
  return { h, changes, stops };
}

describe('runner unit: server health', () => {
  it('tells the scheduler each change once and shows the state and words in the status', () => {
    const { h, changes } = make(2);
    h.event({ index: 0, state: 'restarting', final: false, message: 'crashed; restart 1/3' });
    h.event({ index: 0, state: 'starting', final: false, message: 'loading' });
    h.event({ index: 0, state: 'up', final: false, message: 'restarted' });
    assert.deepEqual(changes, [
      [0, false],
      [0, true],
    ]);
    h.figures(1, { running: 3, waiting: 2 });
    const st = h.status((i) => i * 5);
    assert.deepEqual(
      st.map((s) => [s.state, s.message, s.running, s.waiting, s.restarts]),
      [
        ['up', 'restarted', null, null, 0],
        ['up', null, 3, 2, 5],
      ],
    );
  });

  it('every server failing, one after another, stops the run naming the last', () => {
    const { h, stops } = make(2);
    h.event({ index: 0, state: 'down', final: true, message: 'restart budget used up' });
    assert.equal(stops.length, 0);
    h.event({ index: 1, state: 'down', final: true, message: 'restart budget used up' });
    assert.equal(stops.length, 1);
    assert.equal(stops[0].rule, 'servers_down');
    assert.equal(stops[0].server, 'http://127.0.0.1:8001');
    assert.deepEqual(
      h.status(() => 0).map((s) => s.state),
      ['down', 'down'],
    );
  });

  it('given endpoints all down (not for good) do not stop the run at once: the time limit decides', () => {
    const { h, stops } = make(2);
    h.event({ index: 0, state: 'down', final: false, message: '/health failed' });
    h.event({ index: 1, state: 'down', final: false, message: '/health failed' });
    assert.equal(stops.length, 0);
  });

  it('no server up for the limit stops the run; a server back in time resets the clock', () => {
    const { h, stops } = make(1, 1000);
    h.event({ index: 0, state: 'down', final: false, message: '/health failed' });
    h.tick(0);
    h.tick(900);
    h.event({ index: 0, state: 'up', final: false, message: 'answering again' });
    h.tick(950);
    h.event({ index: 0, state: 'down', final: false, message: '/health failed' });
    h.tick(1500);
    h.tick(2400);
    assert.equal(stops.length, 0);
    h.tick(2501);
    assert.equal(stops.length, 1);
    assert.match(stops[0].message, /server 0: \/health failed/);
  });

  it('hand-over marks the servers not up from the start; after close(), events are ignored', () => {
    const { h, changes } = make(2);
    h.handOver((i) => (i === 1 ? 'down' : 'up'));
    assert.deepEqual(changes, [[1, false]]);
    h.close();
    h.event({ index: 0, state: 'down', final: false, message: 'stopped' });
    assert.deepEqual(changes, [[1, false]]);
    assert.equal(h.status(() => 0)[0].state, 'up');
  });
});
