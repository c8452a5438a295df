// shardOf / applyShard / parseShard: a deterministic partition of videos by hash (every video in
// exactly one shard, the same on every host, roughly balanced) and the K/N flag's validation.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { UsageError } from '../../../../../src/core/errors';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import type { LoadedPackage } from '../../../../../src/core/protocols/fp/package/load';
import { applyShard, itemShardKey, parseShard, shardOf } from '../../../../../src/core/protocols/fp/shard/shard';
import { parseRunArgs } from '../../../../../src/cli/verbs/run';
import { knobEnv, settingsSchema } from '../../../../../src/extension/settingsModel';
import { tinyPackage } from '../../../../helpers/tinyPackage';

/** --package must be an existing run package (the flag layer checks it). */
const PKG = tinyPackage();

describe('shard: partition by video hash', () => {
  it('puts every key in exactly one shard 1..n, the same on every call', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 64 }), (key, n) => {
        const k = shardOf(key, n);
        assert.ok(Number.isInteger(k) && k >= 1 && k <= n, `${k} of ${n}`);
        assert.equal(shardOf(key, n), k);
      }),
      { numRuns: 500 },
    );
  });

  it('is a fixed function of the hash (another host computes the same split)', () => {
    // Pinned values: a change of the function would split a running sweep differently across hosts.
    // sha256('a') = ca9781…: 0xca9781… / 2^48 ≈ 0.79 → shard 4 of 4; sha256('b') = 3e23e8… ≈ 0.24 → shard 1.
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e', 'f', '0123abcd'].map((h) => shardOf(h, 4)),
      [4, 1, 1, 1, 1, 1, 2],
    );
    assert.equal(shardOf('anything', 1), 1);
  });

  it('is roughly balanced for any number of shards', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 0, max: 1e6 }), (n, seed) => {
        const counts = new Array(n).fill(0);
        const total = 600 * n;
        for (let i = 0; i < total; i++) counts[shardOf(`${seed}-${i.toString(36)}`, n) - 1]++;
        // Binomial(600n, 1/n): sd ≈ 24; ±25 % is more than 6 sd.
        for (const c of counts) assert.ok(c > 450 && c < 750, `counts ${counts.join(',')}`);
      }),
      { numRuns: 20 },
    );
  });

  it('applyShard keeps an item with its video, and the shards of a package are disjoint and complete', () => {
    const items = new Map<string, { item_id: string; benchmark: string; video_id: string; question: string; options: string[]; answer: string }[]>();
    const manifest = new Map<string, Map<string, string>>();
    for (const b of ['A', 'B']) {
      items.set(b, []);
      manifest.set(b, new Map());
      for (let i = 0; i < 200; i++) {
        const video = `v${i % 50}`;
        items.get(b)!.push({ item_id: `${b}_${i}`, benchmark: b, video_id: video, question: 'q', options: ['x', 'y'], answer: 'A' });
        // Both benchmarks share the videos' hashes; every 10th video has no manifest row.
        if ((i % 50) % 10 !== 0) manifest.get(b)!.set(video, `hash${i % 50}`);
      }
    }
    const pkg = {
      layout: new PackageLayout('/nonexistent'),
      benchmarks: ['A', 'B'],
      allBenchmarks: ['A', 'B'],
      items,
      manifest,
      scope: null,
      problems: [],
    } as unknown as LoadedPackage;
    for (const n of [1, 2, 3, 5]) {
      const seen = new Map<string, number>();
      const shardOfHash = new Map<string, number>();
      for (let k = 1; k <= n; k++) {
        for (const [b, list] of applyShard(pkg, { index: k, count: n }).items) {
          for (const it of list) {
            const key = `${b}/${it.item_id}`;
            assert.ok(!seen.has(key), `${key} in shards ${seen.get(key)} and ${k}`);
            seen.set(key, k);
            const hash = manifest.get(b)!.get(it.video_id);
            if (hash) {
              assert.equal(shardOfHash.get(hash) ?? k, k, `video ${hash} spans shards`);
              shardOfHash.set(hash, k);
              assert.equal(shardOf(itemShardKey(hash, b, it.item_id), n), k);
            }
          }
        }
      }
      assert.equal(seen.size, 400, `every item in one of ${n} shards`);
    }
    assert.equal(applyShard(pkg, undefined), pkg);
  });

  it('parses K/N (1-based) and refuses anything else with a usage error', () => {
    assert.deepEqual(parseShard('1/2'), { index: 1, count: 2 });
    assert.deepEqual(parseShard(' 3 / 3 '), { index: 3, count: 3 });
    for (const bad of ['0/2', '3/2', '1', '1/0', '-1/2', '1.5/2', 'a/b', '', '1/2/3']) {
      assert.throws(
        () => parseShard(bad),
        (e: unknown) => e instanceof UsageError && /1 ≤ K ≤ N/.test((e as Error).message),
        bad,
      );
    }
    assert.deepEqual(parseRunArgs(['--package', PKG, '--shard', '2/3']).options.shard, { index: 2, count: 3 });
    assert.equal(parseRunArgs(['--package', PKG]).options.shard, undefined);
    assert.throws(() => parseRunArgs(['--package', PKG, '--shard', '4/3']), UsageError);
  });

  it('the fpsweep.shard setting reaches the CLI and the worker as SHARD; a bad one is named', () => {
    assert.equal(knobEnv(settingsSchema.parse({ shard: '2/4' })).SHARD, '2/4');
    assert.equal(knobEnv(settingsSchema.parse({ shard: '' })).SHARD, undefined);
    assert.equal(knobEnv(settingsSchema.parse({})).SHARD, undefined);
    for (const bad of ['5/4', '0/1', 'x']) assert.equal(settingsSchema.safeParse({ shard: bad }).success, false, bad);
    const old = process.env.SHARD;
    process.env.SHARD = '1/3';
    try {
      assert.deepEqual(parseRunArgs(['--package', PKG]).options.shard, { index: 1, count: 3 });
      process.env.SHARD = '4/3';
      assert.throws(
        () => parseRunArgs(['--package', PKG]),
        (e: unknown) => e instanceof UsageError && /SHARD must be K\/N/.test((e as Error).message),
      );
    } finally {
      if (old === undefined) delete process.env.SHARD;
      else process.env.SHARD = old;
    }
  });
});
