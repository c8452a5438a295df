// The engine's verdict on a failed request: cut work and lost servers go back (bounded), the rest is
// counted by fail-fast (a predicted refusal is not), and a context below the protocol's stops the run.
import { strict as assert } from 'node:assert';
import { DrainControl } from '../../../src/core/runner/drainControl';
import { FailFastMonitor } from '../../../src/core/runner/failFast';
import { MAX_REQUEUES, RequestChannel } from '../../../src/core/runner/requestChannel';
import { RunStopper } from '../../../src/core/runner/runStopper';
import type { ChatFailure, ChatResult } from '../../../src/core/serving/client';

function make(sameInARow = 2) {
  const drain = new DrainControl(() => undefined);
  const stopper = new RunStopper(drain, () => undefined, 60_000);
  const monitor = new FailFastMonitor({ sameInARow, firstRequests: 0, firstPrepared: 0 });
  const ch = new RequestChannel([], ['http://127.0.0.1:1'], { stopper, drain, monitor, contextTokens: 65536 });
  return { drain, stopper, monitor, ch };
}
const down: ChatFailure = { ok: false, kind: 'server_down', message: 'ECONNREFUSED', attempts: 1, status: null };
const bad: ChatFailure = { ok: false, kind: 'request', message: 'HTTP 400: bad', attempts: 1, status: 400 };
const ctx = (n: number): ChatFailure => ({
  ok: false,
  kind: 'context',
  message: `This model's maximum context length is ${n} tokens.`,
  attempts: 1,
  status: 400,
});

describe('runner unit: request channel', () => {
  it('a lost server sends the request elsewhere up to MAX_REQUEUES times; while draining it stays to do, no failure', () => {
    const { ch, drain, stopper } = make();
    assert.deepEqual(ch.judge(0, down, MAX_REQUEUES - 1, false), { action: 'requeue' });
    assert.deepEqual(ch.judge(0, down, MAX_REQUEUES, false), { action: 'fail', contextTooSmall: false });
    drain.request('test');
    // The stop that drains the run reached its servers too (issue 43: a scheduler's cancel signals every process).
    assert.deepEqual(ch.judge(0, down, MAX_REQUEUES, false), { action: 'requeue' });
    assert.deepEqual(ch.judge(0, bad, 0, false), { action: 'fail', contextTooSmall: false }, 'an answer while draining is still judged');
    stopper.dispose();
  });

  it("tells the servers' reach of a request with no HTTP answer and of an answer; not of a cut, a 503 or a 400", () => {
    const drain = new DrainControl(() => undefined);
    const seen: string[] = [];
    const reach = {
      lostRequest: (i: number, m: string) => seen.push(`lost ${i} ${m}`),
      answered: (i: number) => seen.push(`answered ${i}`),
      allLost: () => false,
    };
    const ch = new RequestChannel([], ['http://127.0.0.1:1', 'http://127.0.0.1:2'], { drain, reach });
    ch.judge(1, down, 0, false);
    ch.judge(0, { ...down, message: 'aborted: server 0 is down' }, 0, false);
    ch.judge(0, { ok: false, kind: 'server_down', message: 'HTTP 503: Service Unavailable', attempts: 5, status: 503 }, 0, false);
    ch.judge(0, bad, 0, false);
    ch.answered(1);
    assert.deepEqual(seen, ['lost 1 ECONNREFUSED', 'answered 1']);
  });

  it('every server unreachable: a lost request stays to do whatever its requeues, never a failure; an answer still is judged', () => {
    const drain = new DrainControl(() => undefined);
    let allLost = true;
    const reach = { lostRequest: () => undefined, answered: () => undefined, allLost: () => allLost };
    const ch = new RequestChannel([], ['http://127.0.0.1:1'], { drain, reach });
    assert.deepEqual(ch.judge(0, down, MAX_REQUEUES + 5, false), { action: 'requeue' });
    assert.deepEqual(ch.judge(0, bad, 0, false), { action: 'fail', contextTooSmall: false });
    allLost = false;
    assert.deepEqual(ch.judge(0, down, MAX_REQUEUES, false), { action: 'fail', contextTooSmall: false }, 'the policy again once one answers');
  });

  it("a pinned request whose own server is unreachable stays to do (another server's answers do not matter); unpinned, the policy", () => {
    const drain = new DrainControl(() => undefined);
    const reach = { lostRequest: () => undefined, answered: () => undefined, allLost: () => false, isLost: (i: number) => i === 1 };
    const ch = new RequestChannel([], ['http://127.0.0.1:1', 'http://127.0.0.1:2'], { drain, reach, policy: () => 'record' });
    assert.deepEqual(ch.judge(1, down, MAX_REQUEUES + 5, false, true), { action: 'requeue' });
    assert.deepEqual(ch.judge(0, down, 0, false, true), { action: 'fail', contextTooSmall: false }, 'its server is not lost');
    assert.deepEqual(ch.judge(1, down, 0, false, false), { action: 'fail', contextTooSmall: false }, 'unpinned: the policy decides');
    assert.deepEqual(ch.judge(1, bad, 0, false, true), { action: 'fail', contextTooSmall: false }, 'an answer is judged');
  });

  it('counts failures for fail-fast, but not a refusal the protocol predicted', () => {
    const { ch, stopper } = make(2);
    ch.judge(0, ctx(65536), 0, true);
    ch.judge(0, ctx(65536), 0, true);
    assert.equal(stopper.fatal, null);
    ch.judge(0, bad, 0, false);
    ch.judge(0, bad, 0, false);
    assert.equal(stopper.stopReason?.rule, 'same_in_a_row');
    stopper.dispose();
  });

  it('after a stop cut the work, a failure goes back as todo', () => {
    const { ch, stopper } = make();
    stopper.stopFor({ rule: 'preflight', kind: 'request', message: 'm', meaning: 'm', action: 'a', server: null, detail: 'd' });
    (stopper as unknown as { cut: AbortController }).cut.abort();
    assert.deepEqual(ch.judge(0, bad, 0, false), { action: 'requeue' });
    stopper.dispose();
  });

  it('a context refusal below the protocol context stops the run; at the protocol context it is a failure', () => {
    const { ch, stopper, drain } = make(0);
    assert.deepEqual(ch.judge(0, ctx(65536), 0, false), { action: 'fail', contextTooSmall: false });
    assert.equal(stopper.fatal, null);
    assert.deepEqual(ch.judge(0, ctx(32768), 0, false), { action: 'fail', contextTooSmall: true });
    assert.match((stopper.fatal as Error | null)?.message ?? '', /32768 tokens < 65536.*--max-model-len 65536/);
    assert.equal(drain.requested, 'server context too small');
    stopper.dispose();
  });

  it("sums each server's answered latency (failures are not answers)", async () => {
    const drain = new DrainControl(() => undefined);
    const stopper = new RunStopper(drain, () => undefined, 60_000);
    const monitor = new FailFastMonitor({ sameInARow: 0, firstRequests: 0, firstPrepared: 0 });
    const ok = (latency_s: number): ChatResult => ({
      ok: true,
      text: 'A',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      finishReason: 'stop',
      attempts: 1,
      latency_s,
    });
    const answers: ChatResult[] = [ok(1.5), bad, ok(2.25)];
    const client = { chat: async () => answers.shift()! };
    const ch = new RequestChannel([client, client], ['http://127.0.0.1:1', 'http://127.0.0.1:2'], { stopper, drain, monitor, contextTokens: 65536 });
    const body = {} as Parameters<RequestChannel['send']>[1];
    await ch.send(1, body);
    await ch.send(1, body);
    await ch.send(0, body);
    assert.deepEqual(
      [ch.answeredTime(0), ch.answeredTime(1)],
      [
        { requests: 1, latencyS: 2.25 },
        { requests: 1, latencyS: 1.5 },
      ],
    );
    stopper.dispose();
  });
});
