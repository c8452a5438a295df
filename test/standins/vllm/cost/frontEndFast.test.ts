// The host bench's fast path (bench/hostSim/frontEndFast.ts, fastLru.ts) against the cost model it stands for
// (processInputs + ProcessorCache): same hits, misses, API-thread seconds and cache state on random request streams.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { processInputs, type FrontEndImage } from '../../../../src/standins/vllm/cost/frontEnd';
import { ProcessorCache } from '../../../../src/standins/vllm/cost/processorCache';
import { processInputsFast } from '../../../../bench/hostSim/frontEndFast';
import { FastLru } from '../../../../bench/hostSim/fastLru';

const SIZES = [
  [398, 224],
  [299, 168],
  [597, 336],
  [1280, 720],
] as const;

describe('host bench: the fast front end equals the cost model', () => {
  it('processInputsFast + FastLru give what processInputs + ProcessorCache give, request by request', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 30 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 40_000_000 }),
        fc.integer({ min: 1, max: 4 }),
        (requests, capacity, threads) => {
          const ref = new ProcessorCache(capacity);
          const fast = new FastLru(capacity);
          for (const req of requests) {
            const refImages: FrontEndImage[] = req.map(([id, s, uuid]) => ({
              key: String(id * 4 + s),
              width: SIZES[s][0],
              height: SIZES[s][1],
              uuid: uuid ? `u${id * 4 + s}` : null,
            }));
            // The fast path keys by number; a uuid part keys by its uuid (here: the id offset past every content key).
            const fastImages: FrontEndImage[] = req.map(([id, s, uuid]) => ({
              key: (id * 4 + s) as unknown as string,
              width: SIZES[s][0],
              height: SIZES[s][1],
              uuid: uuid ? ((1_000_000 + id * 4 + s) as unknown as string) : null,
            }));
            const a = processInputs(refImages, ref, threads);
            const b = processInputsFast(fastImages, fast, threads);
            assert.equal(b.hits, a.hits);
            assert.equal(b.misses, a.misses);
            assert.ok(Math.abs(b.threadS - a.threadS) <= 1e-12 * Math.max(1, a.threadS), `${b.threadS} vs ${a.threadS}`);
            assert.deepEqual(fast.stats, ref.stats);
            assert.equal(fast.usedBytes, ref.usedBytes);
            assert.equal(fast.size, ref.size);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
