// The folder handle (issue 42): checked from its root once, then every create, rename, read and delete goes through
// the open descriptor. A folder of its path swapped for a link after the open changes nothing: the work lands in the
// folder that was checked, never in the link's target. Bounded: 200 swaps between operations.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { movedUnchanged, openDirUnder } from '../../../src/core/containment/dirHandle';
import { ContainmentError } from '../../../src/core/containment/containmentError';
import { snapshot } from './hostile/hostileFiles';

describe('containment: a folder held open (dirHandle)', () => {
  let top: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dirhandle-')));
    root = path.join(top, 'root');
    outside = path.join(top, 'outside');
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'f'), 'outside\n');
  });
  afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

  it('refuses a link on the path from the root, and a link at a name in the folder', async () => {
    fs.symlinkSync(outside, path.join(root, 'a'));
    await assert.rejects(
      openDirUnder(root, path.join(root, 'a', 'b')),
      (e: unknown) => e instanceof ContainmentError && e.refusedPath === path.join(root, 'a'),
    );
    const d = await openDirUnder(root, path.join(root, 'd'));
    try {
      fs.symlinkSync(path.join(outside, 'f'), path.join(root, 'd', 'l'));
      await assert.rejects(d.openFresh('l'), /EEXIST/);
      await assert.rejects(d.append('l', 'x'), (e: unknown) => e instanceof ContainmentError && e.refusedPath === path.join(root, 'd', 'l'));
      assert.deepEqual(await d.readOwn('l'), { refused: 'is a symbolic link' });
      await assert.rejects(d.sub('l'), ContainmentError);
      await d.remove('l'); // the link itself goes
      assert.equal(fs.existsSync(path.join(root, 'd', 'l')), false);
    } finally {
      await d.close();
    }
    assert.equal(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'outside\n');
  });

  it('a folder of its path swapped for a link after the open: creates, renames and deletes still land in the checked folder', async function () {
    if (process.platform !== 'linux') this.skip(); // names through /proc/self/fd
    const d = await openDirUnder(root, path.join(root, 'a', 'b'));
    const before = snapshot(outside);
    try {
      for (let i = 0; i < 200; i++) {
        // The swapper: `a` moved aside and a link to the outside folder put in its place (and back), between each step.
        const swap = i % 2 === 0;
        if (swap) {
          fs.renameSync(path.join(root, 'a'), path.join(root, 'a.real'));
          fs.mkdirSync(path.join(outside, 'b'), { recursive: true });
          fs.symlinkSync(outside, path.join(root, 'a'));
        }
        await d.writeFresh(`t${i}`, 'ours');
        await d.rename(`t${i}`, `f${i}`);
        if (i % 3 === 0) await d.remove(`f${i}`);
        if (swap) {
          fs.unlinkSync(path.join(root, 'a'));
          fs.renameSync(path.join(root, 'a.real'), path.join(root, 'a'));
          fs.rmSync(path.join(outside, 'b'), { recursive: true });
        }
      }
    } finally {
      await d.close();
    }
    assert.deepEqual(snapshot(outside), before, 'nothing written or deleted outside');
    const names = fs.readdirSync(path.join(root, 'a', 'b'));
    assert.equal(names.length, 200 - Math.ceil(200 / 3));
    assert.ok(names.every((n) => /^f\d+$/.test(n)));
  });

  it('removeTree deletes a folder through handles, unlinking a link inside without following it', async () => {
    const d = await openDirUnder(root, root);
    try {
      fs.mkdirSync(path.join(root, 'x', 'y'), { recursive: true });
      fs.writeFileSync(path.join(root, 'x', 'y', 'z'), 'z');
      fs.symlinkSync(outside, path.join(root, 'x', 'out'));
      await d.removeTree('x');
      assert.equal(fs.existsSync(path.join(root, 'x')), false);
      assert.deepEqual(fs.readdirSync(outside), ['f']);
    } finally {
      await d.close();
    }
  });

  it('isSameFileSync: true only for the file an identity was read from, unchanged; a link or a FIFO there is false at once', async () => {
    const d = await openDirUnder(root, path.join(root, 'd'));
    try {
      fs.writeFileSync(path.join(root, 'd', 'f'), 'ours\n');
      const got = await d.readOwnWithIdentity('f');
      assert.ok(got && 'identity' in got);
      assert.equal(d.isSameFileSync('f', got.identity), true);
      fs.writeFileSync(path.join(root, 'd', 'g'), 'ours\n');
      assert.equal(d.isSameFileSync('g', got.identity), false, 'another file with the same bytes');
      fs.renameSync(path.join(root, 'd', 'g'), path.join(root, 'd', 'f'));
      assert.equal(d.isSameFileSync('f', got.identity), false, 'replaced by rename');
      fs.rmSync(path.join(root, 'd', 'f'));
      fs.symlinkSync(path.join(outside, 'f'), path.join(root, 'd', 'f'));
      assert.equal(d.isSameFileSync('f', got.identity), false, 'a link');
      fs.rmSync(path.join(root, 'd', 'f'));
      execFileSync('mkfifo', [path.join(root, 'd', 'f')]);
      assert.equal(d.isSameFileSync('f', got.identity), false, 'a FIFO, without waiting for a writer');
      assert.equal(d.isSameFileSync('missing', got.identity), false);
    } finally {
      await d.close();
    }
  });

  it('readOwnWithIdentity opens as openRead does: a FIFO is refused at once; movedUnchanged holds across a rename, not a write', async () => {
    const d = await openDirUnder(root, path.join(root, 'd'));
    try {
      execFileSync('mkfifo', [path.join(root, 'd', 'p')]);
      assert.deepEqual(await d.readOwnWithIdentity('p'), { refused: 'is not a plain file' }, 'without waiting for a writer');
      fs.writeFileSync(path.join(root, 'd', 'f'), 'ours\n');
      const got = await d.readOwnWithIdentity('f');
      assert.ok(got && 'identity' in got);
      await d.rename('f', 'g');
      const moved = d.identitySync('g');
      assert.ok(moved && movedUnchanged(got.identity, moved));
      const before = fs.statSync(path.join(root, 'd', 'g')).mtimeMs;
      for (let k = 0; fs.statSync(path.join(root, 'd', 'g')).mtimeMs === before; k++) fs.writeFileSync(path.join(root, 'd', 'g'), `our${k % 10}\n`);
      assert.equal(movedUnchanged(got.identity, d.identitySync('g')!), false, 'written since: its mtime moved');
      assert.equal(d.identitySync('p'), null);
    } finally {
      await d.close();
    }
  });
});
