// The server-health policy, event by event with an explicit clock: the scheduler hears each up/down
// change once, every server failing stops the run, so does no server up for the limit, figures and
// messages reach the status, and our own shutdown is not news.
import { strict as assert } from 'node:assert';
import { ServerHealth } from '../../../src/core/runner/serverHealth';
import type { StopReason } from '../../../src/core/runner/stopReason';

function make(n: number, limit = 1000, unreachableMs = 0) {
  const changes: [number, boolean][] = [];
  const stops: StopReason[] = [];
  const logs: string[] = [];
  const h = new ServerHealth(
    Array.from({ length: n }, (_, i) => `http://127.0.0.1:${8000 + i}`),
    { onUpChange: (i, up) => changes.push([i, up]), onStop: (r) => stops.push(r), log: (l) => logs.push(l) },
    limit,
    { limitMs: unreachableMs, name: `--fail-down ${unreachableMs / 1000}` },
  );
  return { h, changes, stops, logs };
}

const REFUSED = 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8000';

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

  describe('the unreachable rule (given endpoints): every server without an answer for its bound', () => {
    it('the only server refusing for the bound stops the run with its URL, its words and what to do (resume)', () => {
      const { h, stops, logs } = make(1, 600_000, 3000);
      assert.equal(h.allLost(), false);
      h.lostRequest(0, REFUSED, 10_000);
      assert.equal(h.allLost(), true, 'a lost request has nowhere else to go');
      assert.match(logs.join('\n'), /server 0 \(http:\/\/127\.0\.0\.1:8000\) unreachable: ECONNREFUSED.*stays so for 3 s \(--fail-down 3\)/);
      h.tick(12_999);
      assert.equal(stops.length, 0, 'within the bound');
      h.tick(13_000);
      assert.equal(stops.length, 1);
      const r = stops[0];
      assert.equal(r.rule, 'servers_down');
      assert.equal(r.kind, 'server_down');
      assert.equal(r.server, 'http://127.0.0.1:8000');
      assert.equal(r.message, REFUSED);
      assert.match(r.meaning, /nothing listens at the server's address/, "the advice table's words");
      assert.match(r.action, /^restart the server at http:\/\/127\.0\.0\.1:8000: check .*curl http:\/\/127\.0\.0\.1:8000\/health/);
      assert.match(r.action, /then run the same command again: it resumes where it stopped \(nothing written is lost\)$/);
      assert.equal(r.detail, 'the only server unreachable for 3 s (the rule: --fail-down 3)');
      h.tick(60_000);
      assert.equal(stops.length, 1, 'one stop');
    });

    it('an answer within the bound resets the clock; so does /health saying up', () => {
      const { h, stops, logs } = make(1, 600_000, 3000);
      h.lostRequest(0, REFUSED, 0);
      h.tick(2000);
      h.answered(0);
      assert.match(logs.join('\n'), /server 0 \(http:\/\/127\.0\.0\.1:8000\) answers again/);
      h.tick(5000);
      assert.equal(stops.length, 0);
      h.lostRequest(0, REFUSED, 5000);
      h.tick(7000);
      h.event({ index: 0, state: 'up', final: false, message: 'answering /health again' });
      h.tick(9000);
      assert.equal(stops.length, 0);
      h.lostRequest(0, REFUSED, 9000);
      h.tick(11_999);
      assert.equal(stops.length, 0);
      h.tick(12_000);
      assert.equal(stops.length, 1, 'a new outage, its own clock');
    });

    it('one server of two still answering keeps the run going; both lost: the later one decides', () => {
      const { h, stops } = make(2, 600_000, 3000);
      h.lostRequest(0, REFUSED, 0);
      h.tick(10_000);
      assert.equal(stops.length, 0, 'server 1 answers (never lost)');
      assert.equal(h.allLost(), false);
      h.lostRequest(1, 'ECONNRESET: other side closed', 10_000);
      h.tick(12_999);
      assert.equal(stops.length, 0);
      h.tick(13_000);
      assert.equal(stops.length, 1);
      assert.equal(stops[0].server, null);
      assert.match(stops[0].message, /^http:\/\/127\.0\.0\.1:8000: ECONNREFUSED.*; http:\/\/127\.0\.0\.1:8001: ECONNRESET/);
      assert.match(stops[0].detail, /all 2 servers unreachable for 3 s/);
    });

    it('a server whose work is done no longer counts: the one with work left, lost, stops the run alone, named', () => {
      const { h, stops, logs } = make(2, 600_000, 3000);
      h.lostRequest(1, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8001', 0);
      assert.match(
        logs.join('\n'),
        /server 1 \(http:\/\/127\.0\.0\.1:8001\) unreachable: .*the run goes on with the others and stops if every server with work left/,
      );
      assert.equal(h.isLost(1), true, 'what is pinned to it has nowhere to go');
      assert.equal(h.isLost(0), false);
      assert.equal(h.allLost(), false);
      h.tick(10_000);
      assert.equal(stops.length, 0, 'server 0 still has work and answers');
      h.finished(0);
      assert.equal(h.allLost(), true, 'every server with work left is lost');
      h.tick(10_001);
      assert.equal(stops.length, 1);
      assert.equal(stops[0].server, 'http://127.0.0.1:8001');
      assert.match(stops[0].detail, /^the only server with work left \(of 2; the others have finished theirs\) unreachable for 3 s/);
      assert.match(stops[0].action, /^restart the server at http:\/\/127\.0\.0\.1:8001: /);
      assert.equal(h.isLost(1), false, 'stopped: the rule holds nothing back any more');
    });

    it('a finished server that is lost does not count either; every server finished stops nothing', () => {
      const { h, stops } = make(2, 600_000, 3000);
      h.finished(0);
      h.lostRequest(0, REFUSED, 0);
      h.tick(10_000);
      assert.equal(stops.length, 0, 'server 1 has work and answers');
      h.finished(1);
      h.lostRequest(1, REFUSED, 10_000);
      h.tick(20_000);
      assert.equal(stops.length, 0);
    });

    it("/health down starts the clock at the next tick; a request's words are kept over /health's", () => {
      const { h, stops } = make(1, 600_000, 3000);
      h.event({ index: 0, state: 'down', final: false, message: '/health failed 4 time(s) (last: ECONNREFUSED)' });
      h.tick(100);
      h.lostRequest(0, REFUSED, 1000);
      h.tick(3099);
      assert.equal(stops.length, 0);
      h.tick(3100);
      assert.equal(stops.length, 1);
      assert.equal(stops[0].message, REFUSED);
    });

    it('off (0, launched servers): lost requests change nothing; the all-down limit still speaks, with the URL', () => {
      const { h, stops } = make(1, 1000, 0);
      h.lostRequest(0, REFUSED, 0);
      h.tick(60_000);
      assert.equal(stops.length, 0);
      assert.equal(h.allLost(), false, 'the rule off: the engine policy decides');
      h.event({ index: 0, state: 'down', final: false, message: '/health failed' });
      h.tick(60_000);
      h.tick(61_001);
      assert.equal(stops.length, 1);
      assert.equal(stops[0].detail, 'no server has been up for 1 s', 'in seconds, not "0 min"');
      assert.equal(stops[0].server, 'http://127.0.0.1:8000');
    });
  });
});
