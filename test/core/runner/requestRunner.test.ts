// The engine's request runner, without HTTP: pinned lanes stay on their server; a lost server's unpinned
// request goes elsewhere and a pinned one is recorded; a cut records nothing; a drain lets in-flight requests
// finish and sends nothing more; fail-fast stops the run with the server's words; a 'stop' policy ends every
// lane at the first recorded failure.
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { DrainControl } from '../../../src/core/runner/drainControl';
import { FailFastMonitor } from '../../../src/core/runner/failFast';
import { RequestRunner, type RequestWork, type RunControl, type RunnerJob, type RunnerOptions } from '../../../src/core/runner/requestRunner';
import { RunStopper } from '../../../src/core/runner/runStopper';
import type { ChatFailure, ChatResult } from '../../../src/core/serving/client';
import { waitFor } from '../../helpers/waitFor';

interface Body {
  id: string;
}
const ok = (text: string): ChatResult => ({
  ok: true,
  text,
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  finishReason: 'stop',
  attempts: 1,
  latency_s: 0.01,
});
const aborted: ChatFailure = { ok: false, kind: 'server_down', message: 'aborted', attempts: 1, status: null };

/** A server stand-in: every request waits until the test answers it (or its signal aborts). */
class Server {
  readonly sent: string[] = [];
  readonly pending = new Map<string, (r: ChatResult) => void>();
  constructor(private readonly auto?: (id: string) => ChatResult) {}
  chat(body: Body, signal?: AbortSignal): Promise<ChatResult> {
    this.sent.push(body.id);
    if (signal?.aborted) return Promise.resolve(aborted);
    if (this.auto) return Promise.resolve(this.auto(body.id));
    return new Promise((resolve) => {
      this.pending.set(body.id, resolve);
      signal?.addEventListener('abort', () => resolve(aborted), { once: true });
    });
  }
  answer(id: string, r: ChatResult = ok(id)): void {
    const f = this.pending.get(id);
    assert.ok(f, `${id} is in flight`);
    this.pending.delete(id);
    f(r);
  }
}

const job = (id: string, pin?: number): RunnerJob => ({ key: id, tasks: [{ key: id, group: id, cost: 1 }], ...(pin === undefined ? {} : { pin }) });

/** A run type's work: answers and recorded failures, by task and server. */
function tally() {
  const answered: [string, string][] = [];
  const recorded: [string, string][] = [];
  const work: RequestWork<RunnerJob, Body> = {
    execute: async (task, _job, server, requeues, channel) => {
      const res = await channel.send(server.index, { id: task.key });
      if (res.ok) {
        channel.answered(server.index);
        answered.push([task.key, server.endpoint]);
        return 'done';
      }
      if (channel.judge(server.index, res, requeues, false).action === 'requeue') return 'requeue';
      recorded.push([task.key, `${server.endpoint} ${res.message}`]);
      return 'done';
    },
  };
  return { answered, recorded, work };
}

function runner(servers: Server[], control: RunControl, work: RequestWork<RunnerJob, Body>, options: Partial<RunnerOptions> = {}) {
  return new RequestRunner<RunnerJob, Body>(
    control,
    { urls: servers.map((_, i) => `s${i}`), senders: servers.map((s) => ({ chat: (b: Body, sig?: AbortSignal) => s.chat(b, sig) })) },
    work,
    { slots: servers.map(() => ({ capacity: 1 })), ...options },
  );
}

describe('runner unit: request runner', () => {
  it('pinned lanes stay on their server, in order, while the other server is idle', async () => {
    const s0 = new Server();
    const s1 = new Server((id) => ok(id));
    const t = tally();
    const r = runner([s0, s1], {}, t.work);
    const done = r.run([job('a', 0), job('b', 0), job('c', 0), job('x', 1)]);
    await waitFor(() => s0.pending.has('a') && t.answered.length === 1, 2000, 'a in flight on s0, x answered on s1');
    s0.answer('a');
    await waitFor(() => s0.pending.has('b'), 2000, 'b in flight on s0');
    s0.answer('b');
    await waitFor(() => s0.pending.has('c'), 2000, 'c in flight on s0');
    s0.answer('c');
    await done;
    assert.deepEqual(s0.sent, ['a', 'b', 'c']);
    assert.deepEqual(s1.sent, ['x'], 'server 1 took none of server 0 lane');
  });

  it("a lost server's unpinned request goes to another server; a pinned one is recorded, never sent elsewhere", async () => {
    const lost: ChatFailure = { ok: false, kind: 'server_down', message: 'ECONNREFUSED', attempts: 1, status: null };
    const s0 = new Server();
    const s1 = new Server((id) => ok(id));
    const t = tally();
    const r = runner([s0, s1], {}, t.work);
    const done = r.run([job('free'), job('pinned', 0)]);
    // Least-loaded first, ties in server order: the shared queue's request goes to server 0 too.
    await waitFor(() => s0.pending.has('free') && s0.pending.has('pinned'), 2000, 'both in flight on s0');
    r.setServerUp(0, false);
    s0.answer('free', lost);
    s0.answer('pinned', lost);
    await done;
    assert.deepEqual(t.answered, [['free', 's1']]);
    assert.deepEqual(t.recorded, [['pinned', 's0 ECONNREFUSED']]);
    assert.deepEqual([[...s0.sent].sort(), s1.sent], [['free', 'pinned'], ['free']], 'the pinned request was never sent again');
  });

  it('given its fleet, a server whose /health says down takes nothing until it is up: a lost request waits, never re-sent at once', async () => {
    const s0 = new Server();
    let up = new AbortController();
    const handle = { url: 's0', state: 'up' };
    const fleet = Object.assign(new EventEmitter(), { handles: [handle] }) as never as NonNullable<RunnerOptions['fleet']>;
    // Every server lost (the unreachable rule): a lost request stays to do.
    const reach = { lostRequest: () => undefined, answered: () => undefined, allLost: () => true };
    const t = tally();
    const sender = {
      chat: (b: Body, sig?: AbortSignal) => {
        // Without the fleet the down server's aborted up signal fails each send at once and it goes back: a loop.
        if (s0.sent.length > 20) throw new Error(`${b.id} sent ${s0.sent.length} times`);
        return s0.chat(b, sig);
      },
    };
    const r = new RequestRunner<RunnerJob, Body>({}, { urls: ['s0'], senders: [sender], upSignal: () => up.signal }, t.work, {
      slots: [{ capacity: 1 }],
      reach,
      fleet,
    });
    const done = r.run([job('a')]);
    await waitFor(() => s0.pending.has('a'), 2000, 'a in flight');
    // /health says down, as the launcher tells it: the up signal aborts (the request in flight ends), then the event.
    handle.state = 'down';
    up.abort(new Error('down'));
    (fleet as never as EventEmitter).emit('state', { url: 's0', state: 'down' });
    await waitFor(() => r.stats().inFlight === 0, 2000, 'a back to do');
    assert.deepEqual(s0.sent, ['a'], 'not sent again while the server is down');
    up = new AbortController();
    handle.state = 'up';
    (fleet as never as EventEmitter).emit('state', { url: 's0', state: 'up' });
    await waitFor(() => s0.sent.length === 2, 2000, 'a sent again once the server is up');
    s0.answer('a');
    await done;
    assert.deepEqual(t.answered, [['a', 's0']]);
    assert.deepEqual(t.recorded, []);
  });

  it('given its fleet, a server not up at the start takes nothing until it is', async () => {
    const s0 = new Server((id) => ok(id));
    const handle = { url: 's0', state: 'down' };
    const fleet = Object.assign(new EventEmitter(), { handles: [handle] }) as never as NonNullable<RunnerOptions['fleet']>;
    const t = tally();
    const r = runner([s0], {}, t.work, { fleet });
    const done = r.run([job('a')]);
    await waitFor(() => r.stats().servers[0]?.up === false && r.stats().ready === 1, 2000, 'a ready, its server down');
    assert.deepEqual(s0.sent, []);
    handle.state = 'up';
    (fleet as never as EventEmitter).emit('state', { url: 's0', state: 'up' });
    await done;
    assert.deepEqual(t.answered, [['a', 's0']]);
  });

  it('fail-closed: a cut ends in-flight requests, records nothing for them and sends nothing more', async () => {
    const s0 = new Server();
    const cut = new AbortController();
    const t = tally();
    const r = runner([s0], { cutSignal: cut.signal }, t.work, { slots: [{ capacity: 2 }] });
    const done = r.run([job('a'), job('b'), job('c'), job('d')]);
    await waitFor(() => s0.pending.size === 2, 2000, 'two in flight');
    cut.abort(new Error('stopped'));
    await done;
    assert.deepEqual(t.recorded, [], 'a cut request is no failure');
    assert.deepEqual(t.answered, []);
    assert.deepEqual(s0.sent, ['a', 'b']);
  });

  it('drain: in-flight requests finish and are recorded, nothing more is sent', async () => {
    const s0 = new Server();
    const drain = new DrainControl(() => undefined);
    const t = tally();
    const r = runner([s0], { drain }, t.work, { slots: [{ capacity: 2 }] });
    const done = r.run([job('a'), job('b'), job('c'), job('d')]);
    await waitFor(() => s0.pending.size === 2, 2000, 'two in flight');
    drain.request('test');
    s0.answer('a');
    s0.answer('b');
    await done;
    assert.deepEqual(t.answered.map(([k]) => k).sort(), ['a', 'b']);
    assert.deepEqual(s0.sent, ['a', 'b']);
  });

  it("fail-fast: identical failures in a row stop the run with the server's words", async () => {
    const s0 = new Server(() => ({ ok: false, kind: 'request', message: 'HTTP 400: image too large', attempts: 1, status: 400 }));
    const drain = new DrainControl(() => undefined);
    const stopper = new RunStopper(drain, () => undefined, 60_000);
    try {
      const t = tally();
      const r = runner([s0], { drain, stopper, cutSignal: stopper.cutSignal }, t.work, {
        monitor: new FailFastMonitor({ sameInARow: 3, firstRequests: 0, firstPrepared: 0 }),
      });
      await r.run(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => job(k)));
      assert.equal(stopper.stopReason?.rule, 'same_in_a_row');
      assert.equal(stopper.stopReason?.message, 'HTTP 400: image too large');
      assert.equal(stopper.stopReason?.server, null, 'the stopper was told no URLs');
      assert.deepEqual(s0.sent, ['a', 'b', 'c'], 'nothing sent after the trip');
    } finally {
      stopper.dispose();
    }
  });

  it("a 'stop' policy: the first recorded failure ends every lane, in-flight requests cut and not recorded", async () => {
    const s0 = new Server();
    const s1 = new Server();
    const t = tally();
    const r = runner([s0, s1], {}, t.work, { policy: () => 'stop' });
    const done = r.run([job('a0', 0), job('b0', 0), job('a1', 1), job('b1', 1)]);
    await waitFor(() => s0.pending.has('a0') && s1.pending.has('a1'), 2000, 'one in flight per lane');
    s0.answer('a0', { ok: false, kind: 'request', message: 'HTTP 400: cannot open video', attempts: 1, status: 400 });
    await done;
    assert.deepEqual(t.recorded, [['a0', 's0 HTTP 400: cannot open video']]);
    assert.match(r.stopped ?? '', /s0: request: HTTP 400: cannot open video/);
    assert.deepEqual([s0.sent, s1.sent], [['a0'], ['a1']], 'nothing sent after the stop');
  });
});
