// A stopped AVTime run in this process (the run session's fail-closed policy): the stop cuts the requests in
// flight at once (the servers hold every answer, so only the cut can end them), no cut request is recorded as a
// row or judge failure, the stage writes no completion artifact, the status ends "failed" with what to do next,
// and the lock is released. A run stopped in the judge is continued with --resume. Ctrl-C (SIGINT) is the same.
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { readAvtimeStatus } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import type { SignalHost } from '../../../../../src/core/runner/drainControl';
import { tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub } from './benchFixture';
import { startStub, type Stub } from './httpStub';

const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 } };

/** Resolves once `n` bodies have arrived (bounded by the test's timeout). */
async function held(stub: Stub, n: number, which: (b: Record<string, any>) => boolean = () => true): Promise<void> {
  while (stub.bodies.filter(which).length < n) await new Promise((r) => setTimeout(r, 20));
}

/** A SignalHost a test can send SIGINT through (the foreground's Ctrl-C), without touching this process. */
class FakeSignals extends EventEmitter implements SignalHost {
  exits: number[] = [];
  exit(code: number): never {
    this.exits.push(code);
    return undefined as never;
  }
}

describe('avtime: a stop cuts the run (fail-closed)', function () {
  this.timeout(30_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('in target inference: in-flight requests cut, no row failure, no shard summary, status failed, lock released', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('cut'), 'r1');
    // The pre-flight's requests (return_token_ids) are answered; the shards' are held.
    const hold = await startStub((b) => (b.return_token_ids ? { text: '' } : 'hang'));
    const j = await judgeStub();
    stubs.push(hold, j);
    const stop = new AbortController();
    const run = runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r1', targetEndpoints: [hold.url, hold.url], judgeEndpoint: j.url },
      { ...hooks, stopSignal: stop.signal },
    );
    await held(hold, 3, (b) => !b.return_token_ids);
    stop.abort();
    const res = await run;
    assert.equal(res.exitCode, 1, res.line);
    assert.equal(res.line, 'stopped by a stop request (canonical target shards never resume: start a new run (new --output-root))');
    const layout = new AvtimeRunLayout(out, 'r1');
    const status = await readAvtimeStatus(layout.statusFile);
    assert.equal(status?.state, 'failed');
    assert.equal(status?.summary, res.line);
    assert.deepEqual(
      status?.shards.map((s) => s.failed),
      [0, 0],
      'a cut request is not a row failure',
    );
    assert.equal(fs.existsSync(layout.lockFile), false);
    for (const k of [0, 1]) {
      assert.equal(fs.existsSync(layout.shardSummary(k)), false, `shard${k} has no summary: it did not complete`);
      assert.equal(fs.readFileSync(layout.rawPredictions(k), 'utf8'), '');
    }
    assert.equal(j.bodies.length, 0, 'nothing after the stopped stage ran');
  });

  it('in the judge (Ctrl-C): cut, no failure line, no report; --resume then completes the judge and the scores', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('cut'), 'r1');
    const t0 = await targetStub();
    const t1 = await targetStub();
    const hang = await startStub(() => 'hang', ['judge-model']);
    stubs.push(t0, t1, hang);
    const signals = new FakeSignals();
    const opts = { benchRoot: root, outputRoot: out, runId: 'r1', targetEndpoints: [t0.url, t1.url] };
    const run = runAvtime('run', { ...opts, judgeEndpoint: hang.url }, { ...hooks, signals });
    await held(hang, 1);
    signals.emit('SIGINT', 'SIGINT');
    const res = await run;
    assert.equal(res.exitCode, 1, res.line);
    assert.equal(res.line, 'stopped by SIGINT (continue with --resume)');
    assert.deepEqual(signals.exits, [], 'one Ctrl-C stops the run; only a second one exits at once');
    const layout = new AvtimeRunLayout(out, 'r1');
    assert.equal((await readAvtimeStatus(layout.statusFile))?.state, 'failed');
    assert.equal(fs.existsSync(layout.semanticReport), false, 'a stopped judge writes no report');
    assert.equal(fs.readFileSync(layout.semanticFailures, 'utf8'), '', 'a cut request is not a judge failure');
    assert.equal(fs.existsSync(layout.lockFile), false);
    assert.equal(signals.listenerCount('SIGINT'), 0, 'the session stopped listening');

    const j = await judgeStub();
    stubs.push(j);
    const resumed = await runAvtime('run', { ...opts, judgeEndpoint: j.url, resume: true }, hooks);
    assert.equal(resumed.exitCode, 0, resumed.line);
    assert.match(resumed.line, /^scores: /);
    assert.equal((await readAvtimeStatus(layout.statusFile))?.state, 'done');
  });
});
