// The atomic write's crash-safety properties that a test can see: the target is the old file or the new one at
// every step, the file and then its directory are fsynced around the rename, and no temp is left behind after a
// success or after any step fails.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  commitFileAtomic,
  writeFileAtomic,
  writeFileAtomicSync,
  writeStreamAtomic,
  type AtomicFileHandle,
  type AtomicFileSystem,
} from '../../../src/core/runner/atomicFile';

type Step = 'open' | 'write' | 'sync' | 'rename';

/** The real filesystem, with every call logged (paths relative to `dir`) and one step made to fail. */
function watchedFs(dir: string, failAt?: Step, onWrite?: () => void): { fs: AtomicFileSystem; log: string[] } {
  const log: string[] = [];
  // A folder reached through its open descriptor (/proc/self/fd/N, Linux) is named by its real path.
  const real = (p: string) => p.replace(/^\/proc\/self\/fd\/\d+/, (fd) => fs.readlinkSync(fd));
  const rel = (p: string) => path.relative(dir, real(p)).replace(/\.\d+\.\d+\.tmp$/, '.TMP') || '.';
  const fail = (step: Step) => {
    if (step === failAt) throw Object.assign(new Error(`injected ${step} failure`), { code: 'EIO' });
  };
  const watched: AtomicFileSystem = {
    async open(file, flags) {
      log.push(`open ${rel(file)} ${flags}`);
      if (flags !== 'r') fail('open');
      const fh = await fs.promises.open(file, flags);
      const handle: AtomicFileHandle = {
        async writeFile(data) {
          log.push(`write ${rel(file)}`);
          onWrite?.();
          await fh.writeFile(data);
          fail('write');
        },
        async sync() {
          log.push(`fsync ${rel(file)}`);
          fail('sync');
          await fh.sync();
        },
        close: () => fh.close(),
      };
      return handle;
    },
    async rename(from, to) {
      log.push(`rename ${rel(from)} ${rel(to)}`);
      fail('rename');
      await fs.promises.rename(from, to);
    },
    rm: (f, o) => fs.promises.rm(f, o),
  };
  return { fs: watched, log };
}

describe('runner atomicFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atomic-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the bytes through a temp beside the target: fsync the file, rename, fsync the directory', async () => {
    const file = path.join(dir, 'sub', 'status.json');
    const { fs: watched, log } = watchedFs(dir);
    await writeFileAtomic(dir, file, '{"a":1}\n', { fs: watched });
    assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n');
    assert.deepEqual(log, [
      'open sub/status.json.TMP wx',
      'write sub/status.json.TMP',
      'fsync sub/status.json.TMP',
      'rename sub/status.json.TMP sub/status.json',
      'open sub r',
      'fsync sub',
    ]);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'sub')), ['status.json'], 'no temp left');
  });

  it('a reader sees the old file until the rename: never half of the new one', async () => {
    const file = path.join(dir, 'report.json');
    fs.writeFileSync(file, 'old');
    const seen: string[] = [];
    const { fs: watched } = watchedFs(dir, undefined, () => seen.push(fs.readFileSync(file, 'utf8')));
    await writeFileAtomic(dir, file, Buffer.from('new bytes'), { fs: watched });
    assert.deepEqual(seen, ['old']);
    assert.equal(fs.readFileSync(file, 'utf8'), 'new bytes');
  });

  for (const step of ['open', 'write', 'sync', 'rename'] as const) {
    it(`${step === 'open' ? 'an' : 'a'} ${step} that fails throws, leaves the old file and no temp`, async () => {
      const file = path.join(dir, 'cache.json');
      fs.writeFileSync(file, 'old');
      const { fs: watched } = watchedFs(dir, step);
      await assert.rejects(writeFileAtomic(dir, file, 'new', { fs: watched }), new RegExp(`injected ${step} failure`));
      assert.equal(fs.readFileSync(file, 'utf8'), 'old');
      assert.deepEqual(fs.readdirSync(dir), ['cache.json']);
    });
  }

  it('commitFileAtomic: fsyncs a streamed temp, renames it, fsyncs the directory', async () => {
    const tmp = path.join(dir, '.out.tar.gz.tmp-1');
    fs.writeFileSync(tmp, 'streamed');
    const { fs: watched, log } = watchedFs(dir);
    await commitFileAtomic(dir, tmp, path.join(dir, 'out.tar.gz'), { fs: watched });
    assert.deepEqual(log, ['open .out.tar.gz.tmp-1 r', 'fsync .out.tar.gz.tmp-1', 'rename .out.tar.gz.tmp-1 out.tar.gz', 'open . r', 'fsync .']);
    assert.deepEqual(fs.readdirSync(dir), ['out.tar.gz']);
  });

  it('writeStreamAtomic: streams into a hidden temp of an unpredictable name beside the target, fsyncs it, renames it, fsyncs the folder', async () => {
    const file = path.join(dir, 'logs', 'runner.log');
    const { fs: watched, log } = watchedFs(dir);
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(16 * 1024, i));
    await writeStreamAtomic(dir, file, (out) => pipeline(Readable.from(chunks), out), { fs: watched });
    assert.deepEqual(fs.readFileSync(file), Buffer.concat(chunks));
    const tmp = new RegExp(`^logs/\\.runner\\.log\\.tmp-${process.pid}-[0-9a-f]{16}$`);
    const named = log.map((l) => l.replace(/\S*\.tmp-\S*/g, (t) => (tmp.test(t) ? 'TMP' : t)));
    assert.deepEqual(named, ['open TMP r', 'fsync TMP', 'rename TMP logs/runner.log', 'open logs r', 'fsync logs']);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'logs')), ['runner.log'], 'no temp left');
  });

  for (const old of [null, 'the old log\n']) {
    it(`writeStreamAtomic: a source failing mid-stream leaves no temp and no partial target (${old ? 'the old file kept' : 'none made'})`, async () => {
      const file = path.join(dir, 'runner.log');
      if (old) fs.writeFileSync(file, old);
      let midStream: string[] = [];
      async function* failing(): AsyncGenerator<Buffer> {
        yield Buffer.alloc(256 * 1024, 'p');
        yield Buffer.alloc(256 * 1024, 'q');
        midStream = fs.readdirSync(dir);
        throw Object.assign(new Error('injected read failure'), { code: 'EIO' });
      }
      await assert.rejects(
        writeStreamAtomic(dir, file, (out) => pipeline(Readable.from(failing()), out)),
        /injected read failure/,
      );
      assert.equal(midStream.filter((n) => n.startsWith('.runner.log.tmp-')).length, 1, `the temp was there mid-stream: ${midStream.join(' ')}`);
      assert.deepEqual(fs.readdirSync(dir), old ? ['runner.log'] : [], 'no temp left, no target made');
      if (old) assert.equal(fs.readFileSync(file, 'utf8'), old, 'the old file as it was');
    });
  }

  it('writeStreamAtomic: a writer that returns without ending its stream commits nothing', async () => {
    const file = path.join(dir, 'out.bin');
    await assert.rejects(
      writeStreamAtomic(dir, file, async (out) => void out.write('half')),
      /was not ended: not committed/,
    );
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('the synchronous write: same bytes, no temp after a success or after a rename that fails', () => {
    const file = path.join(dir, 'state', 'servers.json');
    writeFileAtomicSync(dir, file, '[]\n');
    assert.equal(fs.readFileSync(file, 'utf8'), '[]\n');
    fs.mkdirSync(path.join(dir, 'state', 'busy'));
    fs.writeFileSync(path.join(dir, 'state', 'busy', 'x'), '');
    assert.throws(() => writeFileAtomicSync(dir, path.join(dir, 'state', 'busy'), 'no'), /EISDIR|ENOTEMPTY|EEXIST/);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'state')).sort(), ['busy', 'servers.json']);
  });

  it('the synchronous write: its folder swapped for a link after the check changes nothing outside (issue 42)', () => {
    const root = path.join(dir, 'root');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(root, 'state'), { recursive: true });
    fs.mkdirSync(outside);
    // The swap happens just before the temp is made: after the folder was checked from the root (and, on this code,
    // opened). A write by path would make its temp and its rename through the link, in the outside folder.
    const openSync = nodeFs.openSync;
    let swapped = false;
    nodeFs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
      if (!swapped && String(p).endsWith('.tmp')) {
        swapped = true;
        fs.renameSync(path.join(root, 'state'), path.join(root, 'state-moved'));
        fs.symlinkSync(outside, path.join(root, 'state'));
      }
      return (openSync as (...a: unknown[]) => number)(p, ...rest);
    }) as typeof fs.openSync;
    try {
      writeFileAtomicSync(root, path.join(root, 'state', 'servers.json'), '[]\n');
    } finally {
      nodeFs.openSync = openSync;
    }
    assert.ok(swapped, 'the swap happened');
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written outside');
    assert.equal(fs.readFileSync(path.join(root, 'state-moved', 'servers.json'), 'utf8'), '[]\n', 'written in the folder that was checked');
    assert.deepEqual(fs.readdirSync(path.join(root, 'state-moved')), ['servers.json'], 'no temp left');
  });
});
