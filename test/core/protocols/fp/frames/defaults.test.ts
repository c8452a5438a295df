import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { defaultFfmpegThreads, defaultMaxBufferedBytes, defaultPoolSize, MiB, resolveOptions } from '../../../../../src/core/protocols/fp/frames/options';
import { sizeThreadPool, threadPoolSizeFor } from '../../../../../src/core/runner/threadPool';

const FRAME_720P = 1280 * 720 * 3;

describe('frame pipeline defaults for the machine', () => {
  it("one decode on a small machine keeps ffmpeg's own threads and a 128 MiB raw-frame budget", () => {
    for (const cores of [1, 2]) {
      const s = resolveOptions({ storeDir: '/x', poolSize: defaultPoolSize(cores) });
      assert.equal(s.poolSize, 1);
      assert.equal(defaultFfmpegThreads(s.poolSize, cores), 0);
      assert.equal(s.maxBufferedBytes, 128 * MiB);
    }
  });

  it('many decodes share the cores: threads × decodes stay within the cores, one thread each at least', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 512 }), fc.integer({ min: 2, max: 512 }), (cores, pool) => {
        const threads = defaultFfmpegThreads(pool, cores);
        assert.ok(threads >= 1);
        assert.ok(threads * pool <= Math.max(cores, pool), `${pool} decodes × ${threads} threads on ${cores} cores`);
      }),
    );
    assert.equal(defaultFfmpegThreads(defaultPoolSize(96), 96), 4);
    assert.equal(defaultFfmpegThreads(defaultPoolSize(16), 16), 4);
    assert.equal(defaultFfmpegThreads(3, 8), 2);
  });

  it('the decode pool is cores − 1 up to 5 cores, then capped at max(4, ⌈cores / 4⌉) (measured on 16 cores)', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((c) => defaultPoolSize(c)),
      [1, 1, 2, 3, 4],
    );
    assert.deepEqual(
      [6, 8, 16, 17, 32, 96].map((c) => defaultPoolSize(c)),
      [4, 4, 4, 5, 8, 24],
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), (cores) => {
        const pool = defaultPoolSize(cores);
        assert.ok(pool >= 1 && pool <= Math.max(1, cores - 1));
      }),
    );
  });

  it('the raw-frame budget leaves every decode room for eight 720p frames', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), (pool) => {
        assert.ok(defaultMaxBufferedBytes(pool) >= pool * 8 * FRAME_720P);
        assert.ok(defaultMaxBufferedBytes(pool) >= 128 * MiB);
      }),
    );
  });

  it('settings given win over the defaults', () => {
    const s = resolveOptions({ storeDir: '/x', poolSize: 40, ffmpegThreads: 3, maxBufferedBytes: 64 * MiB, prefetchDepth: 5 });
    assert.deepEqual([s.ffmpegThreads, s.maxBufferedBytes, s.prefetchDepth], [3, 64 * MiB, 5]);
    const d = resolveOptions({ storeDir: '/x', poolSize: 40 });
    assert.deepEqual([d.maxBufferedBytes, d.prefetchDepth], [40 * 24 * MiB, 80]);
  });

  it("libuv's pool (where sharp runs) grows with the cores; a size the user set is kept", () => {
    assert.equal(threadPoolSizeFor(2), 4);
    assert.equal(threadPoolSizeFor(96), 96);
    assert.equal(threadPoolSizeFor(5000), 1024);
    const env: NodeJS.ProcessEnv = {};
    sizeThreadPool(env, 32);
    assert.equal(env.UV_THREADPOOL_SIZE, '32');
    const mine: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '6' };
    sizeThreadPool(mine, 32);
    assert.equal(mine.UV_THREADPOOL_SIZE, '6');
  });
});
