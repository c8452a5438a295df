import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../../../../src/core/errors';
import { loadPackage, hashOf } from '../../../../../src/core/protocols/fp/package/load';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { readVideoMeta, readVideoMetaUncached, readVideoMetaSync, type MetaLookup } from '../../../../../src/core/protocols/fp/package/meta';

const messageOf = (r: MetaLookup) => (r.kind === 'ok' ? '' : r.message);
import { tempDir, writePackage, itemLine, writeVideo } from '../plan/fixture';

describe('package/load', () => {
  it('loads items and the manifest, reporting benchmark mismatches and duplicates', async () => {
    const root = await tempDir();
    await writePackage(root, {
      benchmarks: { Zeta: [{ item_id: 'z1', video_id: 'zv', hash: 'hz' }], Alpha: [{ item_id: 'a1', video_id: 'av', hash: 'ha' }] },
      videos: [],
    });
    const file = path.join(root, 'items', 'samples', 'Alpha.jsonl');
    await fs.appendFile(
      file,
      [
        itemLine('Zeta', { item_id: 'a2', video_id: 'av' }), // says Zeta, lives in Alpha
        itemLine('Alpha', { item_id: 'a1', video_id: 'other' }), // duplicate id
        itemLine('Alpha', { item_id: 'a3', video_id: 'av' }),
      ].join('\n') + '\n',
    );
    await fs.appendFile(path.join(root, 'manifest', 'manifest_subset.jsonl'), JSON.stringify({ benchmark: 'Alpha', video_id: 'av', hash: 'different' }) + '\n');
    const pkg = await loadPackage(root);
    // scope_summary order (Zeta first), not alphabetical
    assert.deepEqual(pkg.benchmarks, ['Zeta', 'Alpha']);
    assert.deepEqual(
      pkg.items.get('Alpha')!.map((i) => i.item_id),
      ['a1', 'a3'],
    );
    assert.equal(hashOf(pkg, 'Alpha', 'av'), 'ha');
    const lines = pkg.problems.map((p) => `${path.basename(p.file)}:${p.line}`);
    assert.deepEqual(lines.sort(), ['Alpha.jsonl:2', 'Alpha.jsonl:3', 'manifest_subset.jsonl:3'].sort());
    assert.match(pkg.problems.find((p) => p.line === 2)!.message, /says benchmark 'Zeta'/);
    assert.match(pkg.problems.find((p) => p.line === 3 && p.file === file)!.message, /duplicate item_id 'a1' \(first on line 1\)/);
  });

  it('filters benchmarks; an unknown one is an InputError naming the known ones', async () => {
    const root = await tempDir();
    await writePackage(root, { benchmarks: { A: [], B: [{ item_id: 'b', video_id: 'v', hash: 'h' }] }, videos: [], scope: false });
    const pkg = await loadPackage(root, { benchmarks: ['B'] });
    assert.deepEqual(pkg.benchmarks, ['B']);
    assert.deepEqual([...pkg.items.keys()], ['B']);
    await assert.rejects(
      loadPackage(root, { benchmarks: ['B', 'Nope'] }),
      (e: unknown) => e instanceof InputError && /unknown benchmark\(s\) Nope; the package has: A, B/.test(e.message),
    );
  });

  it('classifies video meta as ok / no_video / bad_meta and rejects unsafe hashes', async () => {
    const root = await tempDir();
    const layout = new PackageLayout(root);
    await writeVideo(root, { hash: 'good', width: 1280, height: 720, nFrames: 40 });
    await writeVideo(root, { hash: 'bad', width: 1280, height: 720, nFrames: 40, meta: 'invalid' });
    await writeVideo(root, { hash: 'nomp4', width: 1280, height: 720, nFrames: 40, mp4: false });
    await writeVideo(root, { hash: 'nometa', width: 1280, height: 720, nFrames: 40, meta: false });
    await writeVideo(root, { hash: 'other', width: 1280, height: 720, nFrames: 40 });
    await fs.rename(path.join(layout.storeDir, 'other'), path.join(layout.storeDir, 'wronghash'));
    const good = await readVideoMeta(layout, 'good');
    assert.equal(good.kind, 'ok');
    assert.equal(good.kind === 'ok' && good.meta.timestamps.length, 40);
    assert.equal(await readVideoMeta(layout, 'good'), good, 'second read comes from the cache');
    const bad = await readVideoMetaUncached(layout, 'bad');
    assert.equal(bad.kind, 'bad_meta');
    assert.match(messageOf(bad), /timestamps has 39 entries but n_frames is 40/);
    assert.equal((await readVideoMetaUncached(layout, 'nomp4')).kind, 'no_video');
    assert.equal((await readVideoMetaUncached(layout, 'nometa')).kind, 'no_video');
    assert.equal((await readVideoMetaUncached(layout, 'absent')).kind, 'no_video');
    const mismatch = await readVideoMetaUncached(layout, 'wronghash');
    assert.equal(mismatch.kind, 'bad_meta');
    for (const unsafe of ['..', '../good', 'a/b', 'a\\b']) {
      const r = await readVideoMetaUncached(layout, unsafe);
      assert.equal(r.kind, 'no_video');
      assert.match(messageOf(r), /not a plain name/);
    }
    // the synchronous reader (used by the work plan) classifies the same way
    for (const h of ['good', 'bad', 'nomp4', 'nometa', 'absent', 'wronghash', '../good']) {
      assert.deepEqual(readVideoMetaSync(layout, h), await readVideoMetaUncached(layout, h), h);
    }
  });
});
