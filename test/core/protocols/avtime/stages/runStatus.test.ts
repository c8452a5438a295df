// The status an AVTime run writes, as computed at each write: a running shard whose server the engine's unreachable
// rule holds unreachable shows as waiting on that server (URL, since when, its words, the --fail-down bound), in the
// status file, in `fpsweep status`'s text and in the tree's shard row; once the server answers it is running again.
import { strict as assert } from 'node:assert';
import { ServerHealth } from '../../../../../src/core/runner/serverHealth';
import { AvtimeRunStatus } from '../../../../../src/core/protocols/avtime/stages/runStatus';
import { avtimeStatusSchema } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { fromStatus } from '../../../../../src/core/protocols/avtime/progress';
import { avtimeStatusView, formatAvtimeView } from '../../../../../src/core/protocols/avtime/statusView';
import { passText, shardText } from '../../../../../src/extension/protocols/avtime/avtimeTreeData';

const URLS = ['http://127.0.0.1:8000', 'http://127.0.0.1:8001'];

function running() {
  const health = new ServerHealth(URLS, { onUpChange: () => {}, onStop: () => {}, log: () => {} }, 60_000, { limitMs: 30_000, name: '--fail-down 30' });
  const st = new AvtimeRunStatus({ runId: 'r1', outputRoot: '/o/r1', canonical: false });
  st.status.shards = URLS.map((endpoint, shard) => ({ shard, endpoint, state: 'running', expected: 4, written: 1, failed: 0 }));
  st.reach = health.unreachableOf.bind(health);
  return { health, st };
}

describe('AVTime run status: a shard whose server is unreachable', () => {
  it('is waiting on that server (URL, since when, its words, the bound) while it is unreachable, running again once it answers', () => {
    const { health, st } = running();
    assert.deepEqual(
      st.snapshot().shards.map((s) => s.state),
      ['running', 'running'],
    );

    const since = Date.parse('2026-12-07T09:00:00.000Z');
    health.lostRequest(1, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8001', since);
    const snap = avtimeStatusSchema.parse(st.snapshot()); // as the status file holds it
    assert.equal(snap.shards[0].state, 'running');
    assert.equal(snap.shards[0].waiting, undefined);
    assert.equal(snap.shards[1].state, 'waiting');
    assert.deepEqual(snap.shards[1].waiting, {
      endpoint: URLS[1],
      since: '2026-12-07T09:00:00.000Z',
      message: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8001',
      rule: '--fail-down 30',
    });
    assert.equal(st.status.shards[1].state, 'running', "the stages' own object is not changed by a write");

    // What `fpsweep status` prints and the tree shows: read from the status file, as they read it.
    const view = fromStatus(snap, '/o/r1');
    const words =
      'waiting on http://127.0.0.1:8001, unreachable since 2026-12-07T09:00:00.000Z: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8001; ' +
      'the run stops if every server with work left stays so (--fail-down 30)';
    const text = formatAvtimeView({ ...view, scores: null });
    assert.match(text, /\n {4}shard 0 {2}running +1\/4 written, 0 failed \(http:\/\/127\.0\.0\.1:8000\)\n/);
    assert.ok(text.split('\n').includes(`    shard 1  waiting  1/4 written, 0 failed (http://127.0.0.1:8001) — ${words}`), text);
    // `status --wait` prints its line at each change: the wait is one.
    assert.equal(
      avtimeStatusView({ ...view, scores: null }).line,
      `AVTime r1: inputs todo, infer todo, normalize todo, judge todo, score todo; shard 1 ${words}`,
    );
    assert.equal(shardText('r1', view.shards[1]).description, `waiting · 1/4 · http://127.0.0.1:8001 · ${words}`);
    assert.match(shardText('r1', view.shards[1]).aria, /^AVTime r1 shard 1: waiting, 1 done, 3 todo, 0 failed of 4 · waiting on http/);

    health.answered(1);
    const back = st.snapshot();
    assert.deepEqual(
      back.shards.map((s) => [s.state, s.waiting]),
      [
        ['running', undefined],
        ['running', undefined],
      ],
    );
  });

  it('a server unreachable since before the rule ticked: since is the write time; a shard not running, and a run ended, are as they are', () => {
    const { health, st } = running();
    health.event({ index: 0, state: 'down', final: false, message: '/health: 503' });
    const before = Date.now();
    const w = st.snapshot().shards[0].waiting!;
    assert.ok(Date.parse(w.since) >= before - 1000, w.since);
    assert.equal(w.message, '/health: 503');
    st.status.shards[0].state = 'done';
    assert.equal(st.snapshot().shards[0].state, 'done');
    st.status.shards[0].state = 'running';
    st.end('failed', 'stopped on its own');
    assert.equal(st.snapshot().shards[0].state, 'running');
    st.reach = null;
    st.status.state = 'running';
    assert.equal(st.snapshot().shards[0].state, 'running', 'no rule, no waiting');
  });

  it('a judge pass whose (one) given judge server is unreachable is waiting on it; running again once it answers', () => {
    const health = new ServerHealth([URLS[0]], { onUpChange: () => {}, onStop: () => {}, log: () => {} }, 60_000, { limitMs: 30_000, name: '--fail-down 30' });
    const st = new AvtimeRunStatus({ runId: 'r1', outputRoot: '/o/r1', canonical: true });
    st.status.judgePasses = [{ pass: 1, maxTokens: 512, state: 'running', requests: 9, done: 3, failed: 0 }];
    st.judgeReach = health.unreachableOf.bind(health);
    health.lostRequest(0, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8000', Date.parse('2026-12-07T09:00:00.000Z'));
    const snap = avtimeStatusSchema.parse(st.snapshot());
    assert.equal(snap.judgePasses[0].state, 'waiting');
    const view = fromStatus(snap, '/o/r1');
    const words =
      'waiting on http://127.0.0.1:8000, unreachable since 2026-12-07T09:00:00.000Z: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8000; ' +
      'the run stops if every server with work left stays so (--fail-down 30)';
    assert.ok(
      formatAvtimeView({ ...view, scores: null })
        .split('\n')
        .includes(`    judge pass 1 (512 tokens) waiting  3/9 valid, 0 failed — ${words}`),
    );
    assert.match(avtimeStatusView({ ...view, scores: null }).line, new RegExp(`; judge pass 1 waiting on http://127\\.0\\.0\\.1:8000, `));
    assert.equal(passText('r1', view.passes[0]).description, `waiting · 3/9 valid · ${words}`);
    health.answered(0);
    assert.equal(st.snapshot().judgePasses[0].state, 'running');
    assert.equal(st.snapshot().judgePasses[0].waiting, undefined);
  });
});
