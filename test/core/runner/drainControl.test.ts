// Stop requests: the first one counts, a late listener still hears it, a second Ctrl-C exits 130.
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { DrainControl, type SignalHost } from '../../../src/core/runner/drainControl';

class FakeHost extends EventEmitter implements SignalHost {
  exits: number[] = [];
  exit(code: number): never {
    this.exits.push(code);
    return undefined as never;
  }
}

describe('runner unit: drain control', () => {
  it('keeps the first reason, logs once, and tells late listeners at once', () => {
    const lines: string[] = [];
    const d = new DrainControl((l) => lines.push(l));
    const heard: string[] = [];
    d.onDrain((w) => heard.push(`early:${w}`));
    d.request('stop file');
    d.request('SIGTERM');
    d.onDrain((w) => heard.push(`late:${w}`));
    assert.equal(d.requested, 'stop file');
    assert.deepEqual(heard, ['early:stop file', 'late:stop file']);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /stop requested \(stop file\): draining/);
  });

  it('SIGTERM drains; a second SIGINT exits 130; detached, signals change nothing', () => {
    const host = new FakeHost();
    const d = new DrainControl(() => undefined);
    const detach = d.attach(host);
    host.emit('SIGTERM', 'SIGTERM');
    assert.equal(d.requested, 'SIGTERM');
    assert.deepEqual(host.exits, []);
    host.emit('SIGINT', 'SIGINT');
    assert.deepEqual(host.exits, [130]);
    detach();
    assert.equal(host.listenerCount('SIGINT') + host.listenerCount('SIGTERM'), 0);
  });

  it('an aborted stop signal drains', () => {
    const ac = new AbortController();
    const d = new DrainControl(() => undefined);
    d.attach(new FakeHost(), ac.signal);
    ac.abort();
    assert.equal(d.requested, 'stop signal');
  });
});
