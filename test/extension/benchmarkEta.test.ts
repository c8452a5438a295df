// The tree's per-benchmark ETA is the worker's token-based estimate split by tokens left, not by item
// count: a benchmark of many tiny v_blind requests does not take most of the time left.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { etaShare } from '../../src/core/runner/eta';
import type { WorkerStatus } from '../../src/core/protocols/fp/status/statusSchema';
import { benchmarkEtaSeconds, fromWorkerStatus } from '../../src/core/protocols/fp/progress';

function status(cells: WorkerStatus['cells']): WorkerStatus {
  return { cells, servers: [], etaSeconds: 1000, state: 'running', stopReason: null, summary: null } as unknown as WorkerStatus;
}
const cell = (benchmark: string, todo: number, remainingTokens?: number) => ({
  benchmark,
  condition: 'c',
  total: todo,
  done: 0,
  todo,
  na: 0,
  reuse: 0,
  failed: 0,
  noVideo: 0,
  failedBefore: 0,
  remainingTokens,
});

describe('extension: per-benchmark ETA', () => {
  it('splits the worker ETA by the tokens each benchmark has left', () => {
    // 90 blind requests of 100 tokens vs 10 capped ones of 65,000: by items the first would get 90 %.
    const v = fromWorkerStatus(status([cell('Blind', 90, 9000), cell('Long', 10, 650_000)]), true);
    const [blind, long] = v.benchmarks.map((b) => benchmarkEtaSeconds(v, b)!);
    assert.ok(Math.abs(blind - (1000 * 9000) / 659_000) < 1e-9, String(blind));
    assert.ok(Math.abs(long - (1000 * 650_000) / 659_000) < 1e-9, String(long));
  });

  it('an older status file without tokens splits by requests, as before', () => {
    const v = fromWorkerStatus(status([cell('A', 30), cell('B', 10)]), true);
    assert.deepEqual(
      v.benchmarks.map((b) => benchmarkEtaSeconds(v, b)),
      [750, 250],
    );
  });

  it('the shares add up to the run ETA, and a part with nothing left has none', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ todo: fc.integer({ min: 1, max: 100 }), tokens: fc.integer({ min: 1, max: 100_000 }) }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (parts, eta) => {
          const whole = { todo: parts.reduce((s, p) => s + p.todo, 0), tokens: parts.reduce((s, p) => s + p.tokens, 0) };
          const total = parts.reduce((s, p) => s + etaShare(eta, p, whole)!, 0);
          assert.ok(Math.abs(total - eta) <= 1e-6 * Math.max(1, eta));
          assert.equal(etaShare(eta, { todo: 0, tokens: 0 }, whole), null);
        },
      ),
    );
  });
});
