import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import {
  DEFAULT_MEDIA_LOADING_THREADS,
  DEFAULT_MM_PROCESSOR_CACHE_GB,
  MAX_MM_PROCESSOR_CACHE_GB,
  MAX_PROCESSOR_THREADS,
  processorThreads,
  mediaLoadingThreads,
  processorCacheGb,
} from '../../../src/core/serving/frontEndSizing';

const GIB = 1024 ** 3;

describe('serving: front-end sizing from the host', () => {
  it('gives the processor caches a quarter of the RAM, counted twice a server, within [4, 64] GiB', () => {
    assert.equal(processorCacheGb(512 * GIB, 4), 16);
    assert.equal(processorCacheGb(128 * GIB, 4), DEFAULT_MM_PROCESSOR_CACHE_GB); // 4 GiB share: vLLM's default
    assert.equal(processorCacheGb(64 * GIB, 8), DEFAULT_MM_PROCESSOR_CACHE_GB); // 1 GiB share: never below the default
    assert.equal(processorCacheGb(2048 * GIB, 1), MAX_MM_PROCESSOR_CACHE_GB);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 1, max: 16 }), (ramGib, servers) => {
        const gb = processorCacheGb(ramGib * GIB, servers);
        assert.ok(Number.isInteger(gb) && gb >= DEFAULT_MM_PROCESSOR_CACHE_GB && gb <= MAX_MM_PROCESSOR_CACHE_GB);
        // Above the floor, all servers' caches (twice each) stay within a quarter of the RAM.
        if (gb > DEFAULT_MM_PROCESSOR_CACHE_GB) assert.ok(2 * gb * servers <= ramGib * 0.25 + 1e-9);
        assert.ok(processorCacheGb(ramGib * GIB, servers + 1) <= gb, 'more servers never get more each');
      }),
    );
  });

  it('gives each server a media-loading thread per core it can share, never fewer than vLLM’s 8', () => {
    assert.equal(mediaLoadingThreads(16, 4), DEFAULT_MEDIA_LOADING_THREADS);
    assert.equal(mediaLoadingThreads(112, 4), 28);
    assert.throws(() => mediaLoadingThreads(0, 4), RangeError);
    assert.throws(() => processorCacheGb(GIB, 0), RangeError);
  });

  it('gives each API process torch threads from the cores left after the engine cores and our decodes, in [1, 4]', () => {
    assert.equal(processorThreads(16, 4, 4), 2); // the 16-core host: 16 − 4 engine cores − 4 decodes = 8, 2 a server
    assert.equal(processorThreads(16, 4, 15), 1);
    assert.equal(processorThreads(112, 4, 28), MAX_PROCESSOR_THREADS);
    assert.equal(processorThreads(20, 4, 4), 3);
    assert.throws(() => processorThreads(16, 0, 4), RangeError);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 512 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 64 }), (cores, servers, pool) => {
        const t = processorThreads(cores, servers, pool);
        assert.ok(Number.isInteger(t) && t >= 1 && t <= MAX_PROCESSOR_THREADS);
        // Beyond one thread, the processors, the engine cores and our decodes never ask for more than the cores.
        if (t > 1) assert.ok(servers * (t + 1) + pool <= cores);
        assert.ok(processorThreads(cores, servers, pool + 1) <= t, 'a larger decode pool never gets the servers more');
      }),
    );
  });
});
