import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadPackage } from '../../../../../src/core/protocols/fp/package/load';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { readResultsCsv } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import { buildWorkPlan, type WorkPlan } from '../../../../../src/core/protocols/fp/plan';
import { metaCacheFile } from '../../../../../src/core/protocols/fp/plan/metaCache';
import { DEFAULT_CONDITIONS } from '../../../../../src/core/protocols/fp/rules/conditions';
import { tempDir, writePackage, writeVideo } from './fixture';

async function plan(root: string, metaCache: 'read' | 'update' | 'off'): Promise<WorkPlan> {
  const pkg = await loadPackage(root);
  return buildWorkPlan(pkg, await readResultsCsv(pkg.layout.resultsCsv), { conditions: DEFAULT_CONDITIONS, metaCache });
}

const statuses = (p: WorkPlan) => p.units.map((u) => `${u.item.item_id}/${u.condition}/${u.status}/${u.nFrames ?? ''}`);

describe('plan/metaCache', () => {
  let root: string;
  let layout: PackageLayout;
  beforeEach(async () => {
    root = await tempDir();
    layout = new PackageLayout(root);
    await writePackage(root, {
      benchmarks: {
        B: [
          { item_id: 'i1', video_id: 'v1', hash: 'h1' },
          { item_id: 'i2', video_id: 'v2', hash: 'h2' },
          { item_id: 'i3', video_id: 'v3', hash: 'h3' },
        ],
      },
      videos: [
        { hash: 'h1', width: 1280, height: 720, nFrames: 100 },
        { hash: 'h2', width: 854, height: 480, nFrames: 1024 },
        { hash: 'h3', width: 1280, height: 720, nFrames: 60, meta: 'invalid' },
      ],
    });
  });

  it('a dry run (read) writes nothing; the runner (update) writes it; a cached plan is the same plan', async () => {
    const cold = await plan(root, 'read');
    await assert.rejects(fs.access(metaCacheFile(layout)), 'read mode leaves the package untouched');
    await plan(root, 'update');
    const cache = JSON.parse(await fs.readFile(metaCacheFile(layout), 'utf8'));
    assert.deepEqual(Object.keys(cache.entries).sort(), ['h1', 'h2'], 'only valid metas are cached');
    const warm = await plan(root, 'read');
    assert.deepEqual(statuses(warm), statuses(cold));
    assert.deepEqual(warm.counts, cold.counts);
  });

  it('is really used while meta.json is unchanged, and missed as soon as it changes', async () => {
    await plan(root, 'update');
    const file = metaCacheFile(layout);
    const cache = JSON.parse(await fs.readFile(file, 'utf8'));
    cache.entries.h1[6] = 1; // pretend h1 is too_short: only the cache says so
    await fs.writeFile(file, JSON.stringify(cache));
    const fromCache = await plan(root, 'read');
    assert.equal(fromCache.units.find((u) => u.item.item_id === 'i1' && u.condition === 'v_fps1_s224')!.status, 'NA');
    // rewrite meta.json (same content): ctime changes, the entry misses, the file is read again
    const meta = await fs.readFile(layout.metaFile('h1'));
    await new Promise((r) => setTimeout(r, 20));
    await fs.writeFile(layout.metaFile('h1'), meta);
    const fresh = await plan(root, 'read');
    assert.equal(fresh.units.find((u) => u.item.item_id === 'i1' && u.condition === 'v_fps1_s224')!.status, 'todo');
  });

  it('a changed video is seen: new meta, missing video.mp4, bad cache file', async () => {
    await plan(root, 'update');
    await writeVideo(root, { hash: 'h1', width: 1280, height: 720, nFrames: 20 }); // now too_short
    await fs.rm(layout.videoFile('h2'));
    const p = await plan(root, 'update');
    const st = (item: string, c: string) => p.units.find((u) => u.item.item_id === item && u.condition === c)!;
    assert.equal(st('i1', 'v_fps1_s224').status, 'NA');
    assert.equal(st('i1', 'v_32').nFrames, 20);
    assert.equal(st('i2', 'v_32').status, 'no_video');
    assert.match(st('i2', 'v_32').message!, /video\.mp4 is missing/);
    await fs.writeFile(metaCacheFile(layout), '{"version": 1, "entries": {"h1": [1, 2');
    assert.deepEqual(statuses(await plan(root, 'read')), statuses(p));
    assert.deepEqual(statuses(await plan(root, 'off')), statuses(p));
    assert.ok(path.isAbsolute(metaCacheFile(layout)));
  });
});
