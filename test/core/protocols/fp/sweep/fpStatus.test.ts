// Status and ETA: rates over the recent window, the estimate by tokens (by requests before any token
// rate), and the status file written one write at a time, each handed on in order.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { estimateEtaSeconds, Throughput } from '../../../../../src/core/runner/eta';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import { FpStatusReporter as StatusReporter } from '../../../../../src/core/protocols/fp/sweep/fpStatus';
import type { CellProgress, WorkerStatus } from '../../../../../src/core/protocols/fp/status/statusSchema';

describe('runner unit: status and ETA', () => {
  it('estimates by tokens when the token rate is known, else by requests, 0 when nothing is left', () => {
    assert.equal(estimateEtaSeconds({ todo: 10, remainingTokens: 5000, tokensPerSec: 100, requestsPerMin: 60 }), 50);
    assert.equal(estimateEtaSeconds({ todo: 10, remainingTokens: 5000, tokensPerSec: 0, requestsPerMin: 60 }), 10);
    assert.equal(estimateEtaSeconds({ todo: 10, remainingTokens: 5000, tokensPerSec: 0, requestsPerMin: 0 }), null);
    assert.equal(estimateEtaSeconds({ todo: 0, remainingTokens: 0, tokensPerSec: 0, requestsPerMin: 0 }), 0);
  });

  it('measures rates over the window, at least 10 s, and forgets old answers', () => {
    const t = new Throughput(120_000);
    t.answered(4, 1000, 0);
    t.answered(4, 1000, 20_000);
    const r = t.rates(20_000, 0);
    assert.equal(r.requestsPerMin, 6);
    assert.equal(r.tokensPerSec, 100);
    assert.equal(r.framesPerSec, 0.4);
    assert.deepEqual(t.rates(200_000, 0), { requestsPerMin: 0, framesPerSec: 0, tokensPerSec: 0 });
  });

  it('writes the status from its sources, one write at a time, and hands each on in order', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-status-'));
    try {
      const layout = new PackageLayout(dir);
      let todo = 3;
      const cells = (): CellProgress[] => [
        {
          benchmark: 'b',
          condition: 'v_32',
          total: 5,
          done: 5 - todo,
          todo,
          na: 0,
          reuse: 0,
          failed: 0,
          noVideo: 0,
          failedBefore: 0,
          remainingTokens: todo * 1000,
        },
      ];
      const seen: WorkerStatus[] = [];
      const r = new StatusReporter(
        layout,
        { runId: 'r1', pid: 1, startedAt: 0, mode: 'pilot', shard: null, benchmarks: ['b'], conditions: ['v_32'] },
        { cells, inFlight: () => 1, addedThisRun: () => 2, servers: () => [], stopReason: () => null },
        (s) => seen.push(s),
      );
      r.throughput.answered(1, 1000, Date.now());
      await r.write();
      todo = 0;
      r.state = 'done';
      // Two writes at once: they run one after the other, each built when its turn comes.
      await Promise.all([r.write(), r.write('done: 2 rows')]);
      assert.deepEqual(
        seen.map((s) => [s.state, s.totals.todo, s.summary]),
        [
          ['starting', 3, null],
          ['done', 0, null],
          ['done', 0, 'done: 2 rows'],
        ],
      );
      assert.ok(seen[0].etaSeconds !== null && Math.abs(seen[0].etaSeconds - 30) < 1e-9, String(seen[0].etaSeconds));
      const onDisk = await readStatus(layout);
      assert.equal(onDisk?.state, 'done');
      assert.equal(onDisk?.etaSeconds, 0);
      assert.equal(r.last?.summary, 'done: 2 rows');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
