// Issue 42: the returns tarball packed planted links with their absolute targets (and sent them to whoever unpacks
// it). What leaves the host is read through the containment rules: a link anywhere under the returns paths (a file
// link, a folder link, the top `logs` itself) or a file with a second name is refused with its path (exit 2 through
// the CLI), and no tarball is left behind.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { makeReturnsTarball } from '../../../../src/core/protocols/fp/returns/tarball';
import { uploadReturns } from '../../../../src/core/protocols/fp/returns/upload';
import { ContainmentError } from '../../../../src/core/containment/containmentError';
import { exitFor } from '../../../../src/core/errors';
import { makeReturnsPackage } from '../../protocols/fp/returns/fixture';
import { removeTempDirs } from '../../protocols/fp/returns/tmpDirs';
import { hostileDir, removeHostileDirs } from './hostileFiles';

describe('hostile returns: links planted under what the tarball packs (issue 42)', () => {
  after(async () => {
    removeHostileDirs();
    await removeTempDirs();
  });

  const plants: Array<[string, (dir: string, outside: string) => string]> = [
    ['a file link in logs/', (dir, outside) => link(path.join(outside, 'secret'), path.join(dir, 'logs', 'extra.log'))],
    ['a folder link in results/p1_raw/', (dir, outside) => link(outside, path.join(dir, 'results', 'p1_raw', 'v_9'))],
    ['`logs` itself as a link', (dir, outside) => (fs.rmSync(path.join(dir, 'logs'), { recursive: true }), link(outside, path.join(dir, 'logs')))],
    [
      'a hard link in data/logs/',
      (dir, outside) => (fs.linkSync(path.join(outside, 'secret'), path.join(dir, 'data', 'logs', 'h.jsonl')), path.join(dir, 'data', 'logs', 'h.jsonl')),
    ],
  ];
  function link(target: string, at: string): string {
    fs.symlinkSync(target, at);
    return at;
  }

  for (const [what, plant] of plants) {
    it(`${what}: refused with its path, nothing packed`, async () => {
      const dir = await makeReturnsPackage();
      const outside = hostileDir('fp-hostile-returns-');
      fs.writeFileSync(path.join(outside, 'secret'), 'not for the returns\n');
      const at = plant(dir, outside);
      await assert.rejects(makeReturnsTarball(dir, { hostname: 'h', date: new Date(2026, 11, 2) }), (err: unknown) => {
        assert.ok(err instanceof ContainmentError, String(err));
        assert.equal(err.refusedPath, at);
        assert.equal(exitFor(err).code, 2);
        return true;
      });
      assert.deepEqual(
        fs.readdirSync(dir).filter((n) => n.includes('fp_returns')),
        [],
        'no tarball, no temp file',
      );
    });
  }

  it('the upload opens what it sends itself: a link, or a file with a second name, is refused before the hub is asked', async () => {
    const dir = hostileDir('fp-hostile-upload-');
    const outside = hostileDir('fp-hostile-upload-outside-');
    fs.writeFileSync(path.join(outside, 'secret'), 'not for the hub\n');
    const asLink = link(path.join(outside, 'secret'), path.join(dir, 'fp_returns_host.tar.gz'));
    const hard = path.join(dir, 'fp_returns_host.sha256');
    fs.linkSync(path.join(outside, 'secret'), hard);
    // A hub that is not there: reaching it would be an UploadError, never the refusal.
    const up = (localPath: string) => uploadReturns({ token: 'hf_x', hubUrl: 'http://127.0.0.1:9', files: [{ localPath, pathInRepo: 'returns/x' }] });
    await assert.rejects(up(asLink), (e: unknown) => e instanceof ContainmentError && /is a symbolic link: not uploaded/.test(e.message));
    await assert.rejects(up(hard), (e: unknown) => e instanceof ContainmentError && /has another name \(a hard link\)/.test(e.message));
  });

  it("a link planted at the temp's old predictable name (pid) changes nothing: the temp's name is unpredictable", async () => {
    const dir = await makeReturnsPackage();
    const outside = hostileDir('fp-hostile-returns-tmp-');
    const date = new Date(2026, 11, 2);
    const planted = link(path.join(outside, 'absent'), path.join(dir, `.fp_returns_h_20261202.tar.gz.tmp-${process.pid}`));
    const r = await makeReturnsTarball(dir, { hostname: 'h', date });
    assert.ok(fs.statSync(r.tarballPath).size > 0);
    assert.equal(fs.readlinkSync(planted), path.join(outside, 'absent'), 'the planted link untouched');
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing made outside');
  });

  it('a file swapped for a link after the check, just before it is opened to be packed: refused, never followed', async () => {
    const dir = await makeReturnsPackage();
    const outside = hostileDir('fp-hostile-returns-swap-');
    const victim = path.join(dir, 'logs', 'vllm_gpu0.log');
    // As long as the file it replaces: a reader by path would pack it whole, as if it were the file checked.
    fs.writeFileSync(path.join(outside, 'secret'), 's'.repeat(fs.statSync(victim).size));
    // Every check has passed by the time the packer opens the file (by its path, or through its folder's descriptor):
    // the swap happens at that open, the last moment a check could have been made.
    const swapAt = (p: unknown) => {
      if (swapped || !String(p).endsWith(`${path.sep}vllm_gpu0.log`)) return;
      swapped = true;
      fs.rmSync(victim);
      fs.symlinkSync(path.join(outside, 'secret'), victim);
    };
    let swapped = false;
    // The module object itself (node-tar opens with fs.open, the packer with fs.promises.open).
    const open = nodeFs.open;
    const openPromise = nodeFs.promises.open;
    nodeFs.open = ((p: fs.PathLike, ...rest: unknown[]) => (swapAt(p), (open as (...a: unknown[]) => void)(p, ...rest))) as typeof fs.open;
    nodeFs.promises.open = ((p: fs.PathLike, ...rest: unknown[]) => (
      swapAt(p),
      (openPromise as (...a: unknown[]) => unknown)(p, ...rest)
    )) as typeof fs.promises.open;
    try {
      await assert.rejects(makeReturnsTarball(dir, { hostname: 'h', date: new Date(2026, 11, 2) }), (err: unknown) => {
        assert.ok(err instanceof ContainmentError, String(err));
        assert.match(err.message, /vllm_gpu0\.log: is a symbolic link: the returns never pack it/);
        assert.equal(exitFor(err).code, 2);
        return true;
      });
    } finally {
      nodeFs.open = open;
      nodeFs.promises.open = openPromise;
    }
    assert.ok(swapped, 'the swap happened');
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.includes('fp_returns')),
      [],
      'no tarball, no temp file',
    );
  });
});
