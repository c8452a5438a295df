// The local pool's promises, as properties over random item counts, limits and finishing orders: never more
// than `limit` at once, results in the items' order, and after the first error (or an abort) no new work starts.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { mapBounded } from '../../../src/core/runner/mapBounded';

/** Resolves after `n` turns of the event loop: a finishing order that fast-check picks, with no clock. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

// At least one turn each: a call then settles alone in its turn, so "after the error" is exact (two calls that
// settle in one turn are seen by the pool in some order, and the one seen first may start the next item).
const job = fc.record({ turns: fc.integer({ min: 1, max: 5 }), fails: fc.boolean() });

describe('runner mapBounded', () => {
  it('never runs more than `limit` at once and returns the results in the order of the items', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (delays, limit) => {
        let running = 0;
        let most = 0;
        const out = await mapBounded(delays, limit, async (d, i) => {
          most = Math.max(most, ++running);
          await turns(d);
          running--;
          return `r${i}:${d}`;
        });
        assert.deepEqual(
          out,
          delays.map((d, i) => `r${i}:${d}`),
        );
        assert.ok(most <= limit, `${most} at once with limit ${limit}`);
        assert.equal(most, Math.min(limit, delays.length), 'the pool fills up to its limit');
      }),
      { numRuns: 150 },
    );
  });

  it('after the first error starts nothing new, waits for the running calls, and throws that first error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(job, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 8 }), async (jobs, limit) => {
        const log: string[] = [];
        let running = 0;
        const run = mapBounded(jobs, limit, async (j, i) => {
          log.push(`start ${i}`);
          running++;
          await turns(j.turns);
          running--;
          if (j.fails) {
            log.push(`fail ${i}`);
            throw new Error(`job ${i}`);
          }
          return i;
        });
        const err = await run.then(
          () => null,
          (e: Error) => e,
        );
        assert.equal(running, 0, 'every started call had ended when the map settled');
        const firstFail = log.findIndex((e) => e.startsWith('fail'));
        if (firstFail < 0) {
          assert.equal(err, null);
          return;
        }
        assert.equal(err?.message, `job ${log[firstFail].slice('fail '.length)}`, 'the first error is the one thrown');
        assert.ok(!log.slice(firstFail).some((e) => e.startsWith('start')), `a call started after the first error: ${log.join(', ')}`);
      }),
      { numRuns: 200 },
    );
  });

  it('an aborted signal stops new work and throws its reason', async () => {
    const ac = new AbortController();
    const started: number[] = [];
    const err = await mapBounded(
      [0, 1, 2, 3, 4, 5],
      2,
      async (i) => {
        started.push(i);
        if (i === 1) ac.abort(new Error('stop asked'));
        await turns(1);
        return i;
      },
      { signal: ac.signal },
    ).then(
      () => null,
      (e: Error) => e,
    );
    assert.equal(err?.message, 'stop asked');
    assert.deepEqual(started, [0, 1]);
  });

  it('each lane runs one call at a time, and lanes are 0 … limit−1 (work pinned per lane, e.g. a GPU)', async () => {
    const busy = new Set<number>();
    const lanesSeen = new Set<number>();
    await mapBounded(
      Array.from({ length: 12 }, (_, i) => i),
      3,
      async (i, _index, lane) => {
        assert.ok(!busy.has(lane), `lane ${lane} given item ${i} while busy`);
        busy.add(lane);
        lanesSeen.add(lane);
        await turns(1 + (i % 3));
        busy.delete(lane);
        return i;
      },
    );
    assert.deepEqual([...lanesSeen].sort(), [0, 1, 2]);
  });

  it('refuses a limit that is not a whole number ≥ 1', async () => {
    for (const limit of [0, -1, 1.5, Number.NaN])
      await assert.rejects(
        mapBounded([1], limit, async (x) => x),
        RangeError,
      );
  });
});
