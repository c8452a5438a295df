// The containment module's rules, one case each (issue 33): a path is resolved on disk component by component, a
// link anywhere below the root is refused with its path, `..` never leaves the root, appends refuse a file with a
// second name, a whole-file write replaces a link planted at its target instead of writing through it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ContainmentError,
  mkdirUnder,
  openAppendUnder,
  openTruncatedUnder,
  removeUnder,
  renameUnder,
  resolveInside,
} from '../../../src/core/containment/rootFs';
import { writeFileAtomic } from '../../../src/core/runner/atomicFile';
import { AppendFile } from '../../../src/core/runner/appendFile';
import { exitFor } from '../../../src/core/errors';

describe('containment: rootFs', () => {
  let top: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rootfs-')));
    root = path.join(top, 'root');
    outside = path.join(top, 'outside');
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'f'), 'outside\n');
  });
  afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

  const refused = (where: string, reason: RegExp) => (err: unknown) => {
    assert.ok(err instanceof ContainmentError, String(err));
    assert.equal(err.refusedPath, where);
    assert.match(err.reason, reason);
    return true;
  };

  it('`a/..` where `a` is a link is refused at `a`, though the text cancels it', async () => {
    fs.symlinkSync(outside, path.join(root, 'a'));
    await assert.rejects(resolveInside(root, `${root}/a/../x`), refused(path.join(root, 'a'), /^is a symbolic link$/));
    await assert.rejects(writeFileAtomic(root, `${root}/a/../x`, 'no'), refused(path.join(root, 'a'), /symbolic link/));
  });

  it('`..` that leaves the root, and a path outside it, are refused', async () => {
    await assert.rejects(resolveInside(root, `${root}/x/../../outside/f`), refused(`${root}/x/../../outside/f`, /^leaves the root /));
    await assert.rejects(mkdirUnder(root, path.join(outside, 'd')), refused(path.join(outside, 'd'), /^not inside the root /));
  });

  it('a link in the middle of a path: no mkdir, write, append, rename or delete through it', async () => {
    fs.symlinkSync(outside, path.join(root, 'state'));
    const link = path.join(root, 'state');
    await assert.rejects(mkdirUnder(root, path.join(link, 'd')), refused(link, /symbolic link/));
    await assert.rejects(openAppendUnder(root, path.join(link, 'f')), refused(link, /symbolic link/));
    await assert.rejects(renameUnder(root, path.join(link, 'f'), path.join(root, 'g')), refused(link, /symbolic link/));
    await assert.rejects(removeUnder(root, path.join(link, 'f')), refused(link, /symbolic link/));
    assert.equal(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'outside\n');
  });

  it('a link at the file itself: append and truncate refuse it; a whole-file write replaces the link, not its target', async () => {
    const leaf = path.join(root, 'log');
    fs.symlinkSync(path.join(outside, 'f'), leaf);
    await assert.rejects(new AppendFile(root, leaf).append('x\n'), refused(leaf, /symbolic link/));
    await assert.rejects(openTruncatedUnder(root, leaf), refused(leaf, /symbolic link/));
    await writeFileAtomic(root, leaf, 'ours\n');
    assert.equal(fs.lstatSync(leaf).isFile(), true);
    assert.equal(fs.readFileSync(leaf, 'utf8'), 'ours\n');
    assert.equal(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'outside\n');
  });

  it('a hard link to a file outside: an append or a truncate refuses it (a second name), a delete removes only the name', async () => {
    const hard = path.join(root, 'raw.jsonl');
    fs.linkSync(path.join(outside, 'f'), hard);
    await assert.rejects(new AppendFile(root, hard).append('x\n'), refused(hard, /another name \(a hard link\)/));
    await assert.rejects(openTruncatedUnder(root, hard), refused(hard, /another name/));
    assert.equal(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'outside\n', 'not cut before the refusal');
    await removeUnder(root, hard);
    assert.equal(fs.existsSync(hard), false);
    assert.equal(fs.readFileSync(path.join(outside, 'f'), 'utf8'), 'outside\n');
  });

  it('the refusal is a user error: exit 2 with the path and what to do, no stack', () => {
    const e = exitFor(new ContainmentError('/r/.staging', 'is a symbolic link'));
    assert.equal(e.code, 2);
    assert.match(e.text, /^\/r\/\.staging: is a symbolic link; .* never through a link\. Remove it .* and run again$/);
  });

  it('a root reached through a link is the user’s: paths under it work, by either spelling', async () => {
    const alias = path.join(top, 'alias');
    fs.symlinkSync(root, alias);
    await writeFileAtomic(alias, path.join(alias, 's', 'status.json'), '{}\n');
    await renameUnder(alias, path.join(root, 's', 'status.json'), path.join(alias, 's', 'moved.json'));
    assert.equal(fs.readFileSync(path.join(root, 's', 'moved.json'), 'utf8'), '{}\n');
    await assert.rejects(removeUnder(alias, alias), /is the root itself/);
  });
});
