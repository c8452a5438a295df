// Failure cascades: the first reason fails the run and drains it, in-flight work is cut after the
// grace, a trip names its server by URL, a context too small fails the run without a cut.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { ContextLengthError } from '../../../src/core/serving/contextLength';
import { DrainControl } from '../../../src/core/runner/drainControl';
import { RunStopper, SystematicFailureError, tripStopReason } from '../../../src/core/runner/runStopper';
import type { StopReason } from '../../../src/core/runner/stopReason';

const reason = (rule: StopReason['rule']): StopReason => ({ rule, kind: 'request', message: 'HTTP 400', meaning: 'm', action: 'a', server: null, detail: 'd' });

describe('runner unit: run stopper', () => {
  it('the first reason wins, drains with its words, and cuts in-flight requests after the grace', async () => {
    const drain = new DrainControl(() => undefined);
    const lines: string[] = [];
    const s = new RunStopper(drain, (l) => lines.push(l), 1);
    s.stopFor(reason('preflight'));
    s.stopFor(reason('servers_down'));
    assert.ok(s.fatal instanceof SystematicFailureError);
    assert.equal(s.stopReason?.rule, 'preflight');
    assert.equal(drain.requested, 'pre-flight failed');
    assert.equal(lines.length, 4);
    assert.equal(s.cutSignal.aborted, false);
    await once(s.cutSignal, 'abort');
    s.dispose();
  });

  it('a trip becomes a stop reason naming the server by URL', () => {
    const r = tripStopReason({ rule: 'same_in_a_row', kind: 'request', message: 'HTTP 400: bad', status: 400, server: 1, count: 20, detail: '20 in a row' }, [
      'http://127.0.0.1:1',
      'http://127.0.0.1:2',
    ]);
    assert.equal(r.server, 'http://127.0.0.1:2');
    assert.equal(r.detail, 'fail-fast: 20 in a row');
    const s = new RunStopper(new DrainControl(() => undefined), () => undefined);
    s.trip(null);
    assert.equal(s.fatal, null);
  });

  it('a context too small fails the run and drains, without cutting in-flight work', () => {
    const drain = new DrainControl(() => undefined);
    const s = new RunStopper(drain, () => undefined, 0);
    const err = new ContextLengthError('context 32768 < 65536', { server: 'http://127.0.0.1:1', needed: 65536, held: 32768 });
    s.contextTooSmall(err);
    assert.equal(s.fatal, err);
    assert.equal(s.stopReason, null);
    assert.equal(drain.requested, 'server context too small');
    s.dispose();
    assert.equal(s.cutSignal.aborted, false);
  });
});
