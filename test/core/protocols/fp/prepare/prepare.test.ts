import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { prepare } from '../../../../../src/core/protocols/fp/prepare/prepare';
import { extractShard } from '../../../../../src/core/protocols/fp/prepare/extract';
import { entryProblem, RefusedEntryError } from '../../../../../src/core/protocols/fp/prepare/entryPolicy';
import { makeShardPackage, rawTar, addShard, meta } from './fixture';
import { tempDir, removeTempDirs } from '../returns/tmpDirs';

const plenty = async () => 1e15;

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

describe('prepare', () => {
  it('verifies, extracts, counts videos against n_videos and lists the manifest videos without a folder', async () => {
    const { dir } = await makeShardPackage();
    const progress: string[] = [];
    const r = await prepare({ packageDir: dir, freeBytes: plenty, onProgress: (p) => progress.push(p.label) });
    assert.deepEqual(r.errors, []);
    assert.equal(r.ok, true);
    assert.deepEqual(
      r.shards.map((s) => [s.file, s.status, s.extracted]),
      [
        ['videos_a.tar', 'verified', 'now'],
        ['videos_b.tar', 'verified', 'now'],
      ],
    );
    assert.equal(r.count!.videos, 3);
    assert.deepEqual(r.count!.missing, [{ hash: 'h4', refs: [{ benchmark: 'B2', video_id: 'v4' }] }]);
    assert.equal(await fs.readFile(path.join(dir, 'data/store/normalized/h2/meta.json'), 'utf8'), meta('h2'));
    assert.ok(progress.some((l) => l.startsWith('sha256')) && progress.some((l) => l.startsWith('extract')));
    assert.deepEqual(
      r.deletable.map((d) => d.file),
      ['videos_a.tar', 'videos_b.tar'],
    );
    const cache = JSON.parse(await fs.readFile(path.join(dir, '.fpsweep/verified_shards.json'), 'utf8'));
    assert.deepEqual(Object.keys(cache.shards).sort(), ['videos_a.tar', 'videos_b.tar']);
    assert.ok(cache.shards['videos_a.tar'].extractedAt);
  });

  it('remembers a verification: same size and mtime → not hashed again (even if the bytes changed); a new mtime → hashed and caught', async () => {
    const { dir } = await makeShardPackage();
    const f = path.join(dir, 'videos/videos_b.tar');
    const fixed = new Date('2026-01-01T00:00:00Z'); // whole seconds: utimes keeps them exactly
    await fs.utimes(f, fixed, fixed);
    await prepare({ packageDir: dir, freeBytes: plenty });
    // Change the bytes but keep size and mtime: a rehash would catch it, the cache does not look.
    const b = await fs.readFile(f);
    b[600] ^= 0xff;
    await fs.writeFile(f, b);
    await fs.utimes(f, fixed, fixed);
    const messages: string[] = [];
    const again = await prepare({ packageDir: dir, freeBytes: plenty, onMessage: (m) => messages.push(m) });
    assert.deepEqual(
      again.shards.map((s) => [s.status, s.extracted]),
      [
        ['cached', 'before'],
        ['cached', 'before'],
      ],
    );
    assert.equal(
      messages.some((m) => m.startsWith('verifying')),
      false,
    );
    assert.equal(again.ok, true);
    // Touch it: now it is hashed, and the change is found.
    await fs.utimes(f, new Date(), new Date(Date.now() + 5000));
    const third = await prepare({ packageDir: dir, freeBytes: plenty });
    assert.equal(third.shards[1].status, 'sha_mismatch');
    assert.equal(third.shards[0].status, 'cached');
    assert.equal(third.ok, false);
  });

  it('a tampered shard is an error naming it and is not extracted; the other shard is', async () => {
    const { dir } = await makeShardPackage();
    const f = path.join(dir, 'videos/videos_a.tar');
    const b = await fs.readFile(f);
    b[1000] ^= 0x01;
    await fs.writeFile(f, b);
    const r = await prepare({ packageDir: dir, freeBytes: plenty });
    assert.equal(r.ok, false);
    assert.equal(r.shards[0].status, 'sha_mismatch');
    assert.equal(r.shards[0].extracted, 'no');
    assert.match(r.errors.join('\n'), /videos_a\.tar: sha256 mismatch .* Not extracted/);
    assert.equal(await exists(path.join(dir, 'data/store/normalized/h1')), false);
    assert.equal(await exists(path.join(dir, 'data/store/normalized/h3/video.mp4')), true);
    assert.match(r.errors.join('\n'), /1 videos in .*n_videos = 3: 2 missing/);
    assert.deepEqual(
      r.deletable.map((d) => d.file),
      ['videos_b.tar'],
    );
  });

  it('a shard of the wrong size is reported without hashing it', async () => {
    const { dir } = await makeShardPackage();
    await fs.appendFile(path.join(dir, 'videos/videos_b.tar'), Buffer.alloc(512));
    const r = await prepare({ packageDir: dir, freeBytes: plenty });
    assert.equal(r.shards[1].status, 'size_mismatch');
    assert.match(r.shards[1].message!, /videos_b\.tar: \d+ bytes but the manifest says \d+/);
  });

  const bad: Array<[string, Parameters<typeof rawTar>[0], RegExp]> = [
    [
      'a `../` entry',
      [
        { path: 'h9/video.mp4', body: 'ok' },
        { path: 'h9/../../escaped.txt', body: 'x' },
      ],
      /'h9\/\.\.\/\.\.\/escaped\.txt' \(path contains '\.\.'\)/,
    ],
    [
      'an absolute path',
      [
        { path: 'h9/video.mp4', body: 'ok' },
        { path: '/tmp/fp-absolute-escape.txt', body: 'x' },
      ],
      /'\/tmp\/fp-absolute-escape\.txt' \(absolute path\)/,
    ],
    [
      'a symlink pointing outside',
      [
        { path: 'h9/video.mp4', body: 'ok' },
        { path: 'h9/link', type: 'SymbolicLink', linkpath: '../../outside' },
      ],
      /'h9\/link' \(symbolic link -> \.\.\/\.\.\/outside: a shard holds only files and folders/,
    ],
    [
      'an absolute symlink',
      [{ path: 'h9/link', type: 'SymbolicLink', linkpath: '/etc/passwd' }],
      /'h9\/link' \(symbolic link -> \/etc\/passwd: a shard holds only files and folders/,
    ],
    ['a hard link outside', [{ path: 'h9/hard', type: 'Link', linkpath: '../x' }], /'h9\/hard' \(hard link -> \.\.\/x: a shard holds only files and folders/],
  ];
  for (const [what, entries, re] of bad) {
    it(`refuses a shard with ${what}: error names shard and entry, nothing of it extracted`, async () => {
      const { dir, shards } = await makeShardPackage();
      await addShard(dir, 'videos_evil.tar', rawTar(entries), shards);
      const r = await prepare({ packageDir: dir, freeBytes: plenty });
      const evil = r.shards.find((s) => s.file === 'videos_evil.tar')!;
      assert.equal(evil.status, 'refused');
      assert.equal(evil.extracted, 'no');
      assert.match(evil.message!, /^videos_evil\.tar: refused entr/);
      assert.match(evil.message!, re);
      assert.equal(r.ok, false);
      assert.equal(await exists(path.join(dir, 'data/store/normalized/h9')), false);
      assert.equal(await exists(path.join(dir, 'data/escaped.txt')), false);
      assert.equal(await exists(path.join(dir, 'data/store/outside')), false);
      // The good shards still went in.
      assert.equal(r.count!.videos, 3);
    });
  }

  it('the extraction filter refuses too (a shard changed after hashing): error names shard and entry, nothing lands outside', async () => {
    const root = await tempDir('fp-extract-');
    const store = path.join(root, 'store');
    const layout = { storeDir: store, shardStaging: (name: string) => path.join(root, '.staging', `${name}.${process.pid}`) };
    const shard = path.join(root, 'evil.tar');
    await fs.writeFile(shard, rawTar([{ path: 'h9/../../escaped.txt', body: 'x' }]));
    await assert.rejects(extractShard(shard, 'evil.tar', layout), (err: unknown) => {
      assert.ok(err instanceof RefusedEntryError);
      assert.equal(err.shard, 'evil.tar');
      assert.equal(err.entry, 'h9/../../escaped.txt');
      return true;
    });
    assert.equal(await exists(path.join(root, 'escaped.txt')), false);
    await fs.writeFile(
      shard,
      rawTar([
        { path: 'h9/link', type: 'SymbolicLink', linkpath: '../../../etc' },
        { path: 'h9/link/passwd', body: 'x' },
      ]),
    );
    await assert.rejects(
      extractShard(shard, 'evil.tar', layout),
      /evil\.tar: entry 'h9\/link' refused: symbolic link -> \.\.\/\.\.\/\.\.\/etc: a shard holds only files and folders/,
    );
    assert.equal(await exists(path.join(store, 'h9/link')), false);
    assert.deepEqual(await fs.readdir(store), [], 'nothing of a refused shard in the store (it was extracted into a staging folder)');
    assert.deepEqual(await fs.readdir(path.join(root, '.staging')), [], 'and its staging folder is gone');
  });

  it('checks free disk before extracting: too little → error, nothing extracted', async () => {
    const { dir } = await makeShardPackage();
    const r = await prepare({ packageDir: dir, freeBytes: async () => 1000 });
    assert.equal(r.ok, false);
    assert.equal(r.disk.ok, false);
    assert.ok(r.disk.neededBytes > 3 * 2 * 4096, `needed ${r.disk.neededBytes}`);
    assert.match(r.errors.join('\n'), /not enough free disk .* extraction needs .* free/);
    assert.equal(await exists(path.join(dir, 'data/store/normalized/h1')), false);
  });

  it('--delete-shards deletes verified, extracted shards; a later run knows they were extracted', async () => {
    const { dir } = await makeShardPackage();
    const r = await prepare({ packageDir: dir, freeBytes: plenty, deleteShards: true });
    assert.equal(r.ok, true);
    assert.deepEqual(
      r.shards.map((s) => s.deleted),
      [true, true],
    );
    assert.deepEqual(await fs.readdir(path.join(dir, 'videos')), ['videos_manifest.json']);
    const again = await prepare({ packageDir: dir, freeBytes: plenty });
    assert.deepEqual(
      again.shards.map((s) => s.status),
      ['deleted_after_extract', 'deleted_after_extract'],
    );
    assert.equal(again.ok, true);
  });

  it('a bad videos_manifest.json is an input error with the file name', async () => {
    const { dir } = await makeShardPackage();
    await fs.writeFile(path.join(dir, 'videos/videos_manifest.json'), JSON.stringify({ n_videos: 1, shards: [{ file: '../x.tar', sha256: 'ab', bytes: 1 }] }));
    await assert.rejects(prepare({ packageDir: dir, freeBytes: plenty }), /videos_manifest\.json: shards\.0\.file: must be a plain name/);
  });

  it('entry policy: files and folders pass; every link is refused, even one inside the folder by its text (issue 33)', () => {
    assert.equal(entryProblem('h1/video.mp4', 'File'), null);
    assert.equal(entryProblem('h1/', 'Directory'), null);
    assert.match(entryProblem('h1/alias.mp4', 'SymbolicLink', 'video.mp4')!, /^symbolic link -> video\.mp4: a shard holds only files and folders \(SPEC §1\)$/);
    assert.match(entryProblem('h1/alias.mp4', 'SymbolicLink', '../h2/video.mp4')!, /^symbolic link/);
    assert.match(entryProblem('h1/hard.mp4', 'Link', 'h2/video.mp4')!, /^hard link -> h2\/video\.mp4: a shard holds only files and folders/);
    assert.match(entryProblem('h1/dev', 'CharacterDevice')!, /not allowed/);
  });
});

after(removeTempDirs);
