// `merge` copies each shard's logs/ into the package's logs/shards/<name>/ (review of issue 42): the shard's side was
// read by path after a folder listing said "a plain file" (or "a folder"), so a link swapped in between was followed
// and what it points at was copied in. Now every folder is opened O_DIRECTORY|O_NOFOLLOW through its parent's handle
// and every file O_NOFOLLOW|O_NONBLOCK, checked a plain file on its descriptor: the swap is refused with its path,
// nothing of the link's target is copied, nothing outside changes.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import { copyLogs } from '../../../../src/core/protocols/fp/merge/merge';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { ContainmentError } from '../../../../src/core/containment/containmentError';
import { exitFor } from '../../../../src/core/errors';
import { hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const SECRET = 'not for the merged package\n';

/** Every file's text under `dir` (relative path → text), links included as what they are. */
function texts(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(dir)).map(([k, v]) => [k, v.startsWith('file:') ? Buffer.from(v.slice(5), 'base64').toString() : v]));
}

describe("hostile merge: a shard's logs swapped for a link at the moment they are opened (issue 42 review)", () => {
  after(removeHostileDirs);

  let shard: PackageLayout;
  let into: string;
  let outside: string;
  beforeEach(() => {
    const top = fs.realpathSync(hostileDir('fp-hostile-merge-logs-'));
    shard = new PackageLayout(path.join(top, 'shard'));
    into = path.join(top, 'into');
    outside = path.join(top, 'outside');
    fs.mkdirSync(path.join(shard.logsDir, 'sub'), { recursive: true });
    fs.mkdirSync(path.join(into, 'logs'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(shard.logsDir, 'runner.log'), 'r'.repeat(SECRET.length)); // as long as the secret
    fs.writeFileSync(path.join(shard.logsDir, 'sub', 'x.log'), 'shard sub log\n');
    fs.writeFileSync(path.join(outside, 'secret'), SECRET);
  });

  /** Runs `fn` with `swap` called once, at the first open or listing of a path ending in `/<name>`, before it. */
  async function swappedAt<T>(name: string, swap: () => void, fn: () => Promise<T>): Promise<{ swapped: boolean; result: Promise<T> }> {
    let swapped = false;
    const at = (p: unknown) => {
      if (swapped || !String(p).endsWith(`${path.sep}${name}`)) return;
      swapped = true;
      swap();
    };
    // The module objects (a read by path opens with fs.open, a handle with fs.promises.open; a folder is listed).
    const open = nodeFs.open;
    const openPromise = nodeFs.promises.open;
    const readdir = nodeFs.promises.readdir;
    nodeFs.open = ((p: fs.PathLike, ...rest: unknown[]) => (at(p), (open as (...a: unknown[]) => void)(p, ...rest))) as typeof fs.open;
    nodeFs.promises.open = ((p: fs.PathLike, ...rest: unknown[]) => (
      at(p),
      (openPromise as (...a: unknown[]) => unknown)(p, ...rest)
    )) as typeof fs.promises.open;
    nodeFs.promises.readdir = ((p: fs.PathLike, ...rest: unknown[]) => (
      at(p),
      (readdir as (...a: unknown[]) => unknown)(p, ...rest)
    )) as typeof fs.promises.readdir;
    const result = fn();
    try {
      await result.catch(() => undefined);
    } finally {
      nodeFs.open = open;
      nodeFs.promises.open = openPromise;
      nodeFs.promises.readdir = readdir;
    }
    return { swapped, result };
  }

  const cases: Array<{ what: string; name: string; swap: (logs: string, outside: string) => void; reason: RegExp }> = [
    {
      what: 'a file (runner.log) swapped for a link to a file outside',
      name: 'runner.log',
      swap: (logs, out) => (fs.rmSync(path.join(logs, 'runner.log')), fs.symlinkSync(path.join(out, 'secret'), path.join(logs, 'runner.log'))),
      reason: /^is a symbolic link/,
    },
    {
      what: 'a folder (sub/) swapped for a link to a folder outside',
      name: 'sub',
      swap: (logs, out) => (fs.rmSync(path.join(logs, 'sub'), { recursive: true }), fs.symlinkSync(out, path.join(logs, 'sub'))),
      // O_DIRECTORY|O_NOFOLLOW on a link: ENOTDIR (Linux), ELOOP elsewhere.
      reason: /^is (a symbolic link|not a folder)/,
    },
    {
      what: 'a file (runner.log) swapped for a FIFO (an open by path would wait for a writer forever)',
      name: 'runner.log',
      swap: (logs) => (fs.rmSync(path.join(logs, 'runner.log')), execFileSync('mkfifo', [path.join(logs, 'runner.log')])),
      reason: /^is not a plain file/,
    },
  ];

  for (const c of cases) {
    it(`${c.what}: refused naming it (exit 2), nothing of it copied, nothing outside changed`, async () => {
      const before = snapshot(outside);
      const dest = path.join(into, 'logs', 'shards', 's1');
      const { swapped, result } = await swappedAt(
        c.name,
        () => c.swap(shard.logsDir, outside),
        () => copyLogs(shard, into, dest),
      );
      assert.ok(swapped, 'the swap happened');
      await assert.rejects(result, (err: unknown) => {
        assert.ok(err instanceof ContainmentError, String(err));
        assert.equal(err.refusedPath, path.join(shard.logsDir, c.name));
        assert.match(err.reason, c.reason);
        assert.equal(exitFor(err).code, 2);
        return true;
      });
      const copied = texts(into);
      assert.ok(!Object.values(copied).includes(SECRET), `nothing outside copied in: ${JSON.stringify(copied)}`);
      assert.deepEqual(
        Object.keys(copied).filter((k) => path.basename(k).includes('.tmp-')),
        [],
        'no temp left',
      );
      assert.ok(
        !(path.join('logs', 'shards', 's1', c.name) in copied && copied[path.join('logs', 'shards', 's1', c.name)] !== 'dir'),
        'the swapped name not written',
      );
      assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
    });
  }

  it("the shard's `logs` itself a link to a folder outside: refused naming it, nothing of the outside copied in", async () => {
    fs.writeFileSync(path.join(outside, 'runner.log'), SECRET);
    fs.rmSync(shard.logsDir, { recursive: true });
    fs.symlinkSync(outside, shard.logsDir);
    const before = snapshot(outside);
    await assert.rejects(copyLogs(shard, into, path.join(into, 'logs', 'shards', 's1')), (err: unknown) => {
      assert.ok(err instanceof ContainmentError, String(err));
      assert.equal(err.refusedPath, shard.logsDir);
      return true;
    });
    assert.ok(!Object.values(texts(into)).includes(SECRET), 'nothing outside copied in');
    assert.deepEqual(snapshot(outside), before, 'nothing outside changed');
  });

  it('without a swap the same logs are copied whole (the shards/ folder of a merged shard left out)', async () => {
    fs.mkdirSync(path.join(shard.logsDir, 'shards', 'old'), { recursive: true });
    fs.writeFileSync(path.join(shard.logsDir, 'shards', 'old', 'runner.log'), 'a shard of the shard\n');
    const dest = path.join(into, 'logs', 'shards', 's1');
    await copyLogs(shard, into, dest);
    assert.deepEqual(texts(dest), { 'runner.log': 'r'.repeat(SECRET.length), sub: 'dir', [path.join('sub', 'x.log')]: 'shard sub log\n' });
  });
});
