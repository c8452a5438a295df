// The processor cache (LRU by bytes) and the API server's per-request front-end time.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { fastProcessorMs, hashMs } from '../../../../src/standins/vllm/cost/calibration';
import { ApiThread, MediaPool, frontEndFloorS, processInputs, type FrontEndImage } from '../../../../src/standins/vllm/cost/frontEnd';
import { ProcessorCache, qwen3vlItemBytes, qwen3vlPatches } from '../../../../src/standins/vllm/cost/processorCache';

const img = (key: string, width = 398, height = 224, uuid?: string): FrontEndImage => ({ key, width, height, uuid });

describe('stand-in cost model: processor cache and front end', () => {
  it('counts an item at its bf16 pixel_values + grid bytes (398×224 → 336 patches, ~1 MB)', () => {
    assert.equal(qwen3vlPatches(398, 224), 336);
    assert.equal(qwen3vlItemBytes(398, 224), 336 * 1536 * 2 + 24);
    assert.equal(qwen3vlItemBytes(1280, 720), 3520 * 1536 * 2 + 24);
  });

  it('evicts least recently used items by bytes, never by count', () => {
    const c = new ProcessorCache(100);
    c.insert('a', 40);
    c.insert('b', 40);
    assert.equal(c.lookup('a'), true); // a is now the most recent
    c.insert('c', 40); // 120 > 100: b (least recent) goes
    assert.deepEqual([c.lookup('a'), c.lookup('b'), c.lookup('c')], [true, false, true]);
    assert.equal(c.usedBytes, 80);
    c.insert('big', 90); // needs both a and c out
    assert.deepEqual([c.lookup('a'), c.lookup('c'), c.lookup('big')], [false, false, true]);
    c.insert('huge', 101); // bigger than the cache: not kept, nothing evicted
    assert.deepEqual([c.lookup('huge'), c.lookup('big')], [false, true]);
    assert.equal(c.stats.evictions, 3);
  });

  it('never holds more bytes than its capacity, and keeps the most recent item that fits (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 60 })), { maxLength: 60 }), (ops) => {
        const c = new ProcessorCache(100);
        for (const [k, b] of ops) {
          c.insert(String(k), b);
          assert.ok(c.usedBytes <= 100);
          assert.equal(c.lookup(String(k)), true);
        }
      }),
    );
  });

  it('a repeated image is a cache hit and costs no processor time; the hash is still paid', () => {
    const cache = ProcessorCache.fromGb(4);
    const first = processInputs([img('x'), img('y')], cache);
    const again = processInputs([img('x'), img('y')], cache);
    assert.deepEqual([first.misses, again.hits, again.misses], [2, 2, 0]);
    assert.equal(again.processS, 0);
    assert.ok(Math.abs(first.processS - (2 * fastProcessorMs(398 * 224)) / 1000) < 1e-12);
    assert.ok(again.hashS > 0 && Math.abs(again.hashS - (2 * hashMs(398 * 224)) / 1000) < 1e-12);
    assert.ok(again.threadS < first.threadS);
  });

  it('with --mm-processor-cache-gb 0 every repeat is processed again', () => {
    const a = processInputs([img('x')], null);
    const b = processInputs([img('x')], null);
    assert.equal(b.hits, 0);
    assert.equal(a.processS, b.processS);
  });

  it("a part's uuid replaces the pixel hash: no hash cost, and it is the cache key", () => {
    const cache = ProcessorCache.fromGb(4);
    const r = processInputs([img('x', 398, 224, 'sha256-x'), img('y', 398, 224, 'sha256-x')], cache);
    assert.equal(r.hashS, 0);
    assert.deepEqual([r.misses, r.hits], [1, 1]); // same uuid: vLLM trusts it, the second is a hit
  });

  it('a cache too small for a video thrashes; one big enough processes each distinct frame once', () => {
    const video = Array.from({ length: 64 }, (_, i) => img(`f${i}`));
    const requests = [video, video, video];
    const run = (cache: ProcessorCache) => requests.reduce((s, r) => s + processInputs(r, cache).threadS, 0);
    const floor = frontEndFloorS(requests);
    assert.ok(Math.abs(run(ProcessorCache.fromGb(4)) - floor) < 1e-9);
    assert.ok(run(new ProcessorCache(32 * qwen3vlItemBytes(398, 224))) > 2.5 * floor); // LRU over a loop: all miss
  });

  it('the media pool runs 8 decodes at once; the API thread one piece of work at a time', () => {
    const pool = new MediaPool(8);
    assert.equal(pool.run(0, new Array<number>(16).fill(1)), 2);
    assert.equal(pool.run(0, [1]), 3);
    const t = new ApiThread();
    assert.deepEqual(t.run(0, 2), { startS: 0, endS: 2 });
    assert.deepEqual(t.run(1, 2), { startS: 2, endS: 4 });
    assert.deepEqual(t.run(10, 1), { startS: 10, endS: 11 });
    assert.equal(t.busyS, 5);
  });
});
