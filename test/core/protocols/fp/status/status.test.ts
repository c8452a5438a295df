import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { CSV_HEADER } from '../../../../../src/core/protocols/fp/package/schemas';
import { readLiveStatus } from '../../../../../src/core/protocols/fp/sweep/liveStatus';
import { writeStatusAtomic } from '../../../../../src/core/protocols/fp/status/status';
import type { CellProgress, WorkerStatus } from '../../../../../src/core/protocols/fp/status/statusSchema';

function cell(benchmark: string, condition: string, total: number, failedBefore: number): CellProgress {
  return { benchmark, condition, total, done: 0, todo: total, na: 0, reuse: 0, failed: 0, noVideo: 0, failedBefore };
}

describe('runner: the status a reader sees after the worker died', () => {
  it('recomputes done and todo from the CSV, and failed-before never exceeds what is left to do', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-status-'));
    const layout = new PackageLayout(root);
    const cells = [cell('MVBench', 'v_1', 3, 2), cell('MVBench', 'v_8_s224', 3, 1)];
    // Its last status: 3 earlier failures still to ask; a pid that is not alive; no lock.
    const status: WorkerStatus = {
      version: 1,
      pid: 2 ** 22 + 12345,
      runId: 'r1',
      startedAt: '2026-12-03T00:00:00Z',
      updatedAt: '2026-12-03T00:01:00Z',
      state: 'running',
      mode: 'full',
      benchmarks: ['MVBench'],
      conditions: ['v_1', 'v_8_s224'],
      message: null,
      totals: { total: 6, done: 0, todo: 6, inFlight: 2, failed: 0, failedBefore: 3, addedThisRun: 0 },
      cells,
      throughput: { requestsPerMin: 0, framesPerSec: 0 },
      etaSeconds: 10,
      servers: [],
      summary: null,
    };
    await writeStatusAtomic(layout, status);
    // Rows it wrote after that status: two of v_1 (the earlier failures, asked again), none of v_8_s224.
    await fs.mkdir(path.dirname(layout.resultsCsv), { recursive: true });
    const row = (item: string) => ['MVBench', item, 'v_1', 'ok', 'A', 'A', '1', '1', '100', '0.1', '2026-12-03T00:01:01Z'].join(',');
    await fs.writeFile(layout.resultsCsv, [CSV_HEADER.join(','), row('i1'), row('i2'), ''].join('\n'));

    const live = await readLiveStatus(layout);
    assert.equal(live.alive, false);
    const s = live.status!;
    assert.equal(s.state, 'failed');
    assert.deepEqual(
      s.cells.map((c) => [c.condition, c.done, c.todo, c.failedBefore]),
      [
        ['v_1', 2, 1, 1],
        ['v_8_s224', 0, 3, 1],
      ],
    );
    assert.deepEqual([s.totals.done, s.totals.todo, s.totals.failedBefore, s.totals.inFlight], [2, 4, 2, 0]);
  });
});
