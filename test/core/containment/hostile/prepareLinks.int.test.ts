// Issue 33, attacks 1 and 2, through `fpsweep prepare`: a shard whose link is inside the store by its text and
// outside on disk (`h1/d1/…/d12/a -> ../…` 13 levels up: the store itself; `h1/video.mp4 -> d1/…/d12/a/../…/etc/passwd`
// climbs from there), and the same with a folder link and a file written through it. SPEC §1: a shard holds
// `<hash>/video.mp4` and `<hash>/meta.json`, so prepare refuses every link; the shard is extracted into a staging
// folder and moved into the store only when every entry is a plain file or folder inside it. A refused shard leaves
// nothing in the store, says what was refused and why, and the exit is 1 (not prepared, `prepare --help`).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { rawTar, sha256, meta, type RawEntry } from '../../protocols/fp/prepare/fixture';
import { hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const DEEP = Array.from({ length: 12 }, (_, i) => `d${i + 1}`).join('/'); // d1/…/d12
const UP_TO_STORE = '../'.repeat(13); // from h1/d1/…/d12 back to the store (13 folders)
/** From h1/, through the link `a` (the store on disk), then up to / whatever the store's depth: as text, inside h1. */
const THROUGH_A = (rest: string) => `${DEEP}/a/${'../'.repeat(14)}${rest}`;

function packageWith(entries: RawEntry[]): { dir: string; store: string } {
  const dir = hostileDir('fp-hostile-prepare-');
  const tarBytes = rawTar(entries);
  fs.mkdirSync(path.join(dir, 'videos'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'manifest'), { recursive: true });
  // An honest package's other half (SPEC §1: the origin's items), so `--package` is taken for a run package.
  fs.mkdirSync(path.join(dir, 'items', 'samples'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'videos', 'videos_evil.tar'), tarBytes);
  const manifest = { n_videos: 1, shards: [{ file: 'videos_evil.tar', sha256: sha256(tarBytes), bytes: tarBytes.length }] };
  fs.writeFileSync(path.join(dir, 'videos', 'videos_manifest.json'), JSON.stringify(manifest));
  fs.writeFileSync(path.join(dir, 'manifest', 'manifest_subset.jsonl'), JSON.stringify({ benchmark: 'B1', video_id: 'v1', hash: 'h1' }) + '\n');
  return { dir, store: path.join(dir, 'data', 'store', 'normalized') };
}

const ladder: RawEntry[] = [
  { path: `h1/${DEEP}/`, type: 'Directory' },
  { path: `h1/${DEEP}/a`, type: 'SymbolicLink', linkpath: UP_TO_STORE },
];

describe('hostile shards: links inside by text, outside on disk (issue 33, attacks 1 and 2)', function () {
  this.timeout(60_000);
  after(removeHostileDirs);

  it('attack 1: h1/video.mp4 -> …/a/../…/etc/passwd is refused; the store holds nothing of the shard', async () => {
    const { dir, store } = packageWith([
      ...ladder,
      { path: 'h1/video.mp4', type: 'SymbolicLink', linkpath: THROUGH_A('etc/passwd') },
      { path: 'h1/meta.json', body: meta('h1') },
    ]);
    const r = await runCli(['prepare', '--package', dir]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /FAIL videos_evil\.tar {2}refused, not extracted/);
    const deepA = `h1/${DEEP}/a`;
    const why = `a shard holds only files and folders \\(SPEC §1\\)`;
    const refused = `refused entries '${deepA}' \\(symbolic link -> (\\.\\./){13}: ${why}\\), 'h1/video\\.mp4' \\(symbolic link -> `;
    assert.match(r.out, new RegExp(refused));
    assert.match(r.out, /NOT prepared: 1 shard\(s\), 1 failed, 0 extracted now; 0 of 1 videos/);
    assert.deepEqual(fs.existsSync(store) ? fs.readdirSync(store) : [], [], 'nothing of the shard in the store');
  });

  it('attack 2: a folder link and a file written through it: refused, nothing outside written, nothing left in the store', async () => {
    const outside = hostileDir('fp-hostile-outside-');
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'the outside file\n');
    const before = snapshot(outside);
    const { dir, store } = packageWith([
      ...ladder,
      { path: 'h1/outdir', type: 'SymbolicLink', linkpath: THROUGH_A(outside.slice(1)) },
      { path: 'h1/outdir/keep.txt', body: 'written through the link\n' },
      { path: 'h1/video.mp4', type: 'SymbolicLink', linkpath: THROUGH_A('etc/passwd') },
      { path: 'h1/meta.json', body: meta('h1') },
    ]);
    const r = await runCli(['prepare', '--package', dir]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /refused entr.*symbolic link/);
    assert.deepEqual(snapshot(outside), before, 'the outside folder unchanged');
    assert.deepEqual(fs.existsSync(store) ? fs.readdirSync(store) : [], [], 'no h1/outdir, video.mp4 or meta.json in the store');
  });
});
