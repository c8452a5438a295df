import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FrameStore, frameFileName } from '../../../../../src/core/protocols/fp/frames';
import { sha256Hex } from '../../../../../src/core/protocols/fp/frames/store';
import { execFileSync } from 'node:child_process';
import { reads } from './storeReads';

async function exists(f: string) {
  return fs.access(f).then(
    () => true,
    () => false,
  );
}

describe('frame store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-store-'));
  });
  const open: FrameStore[] = [];
  /** A store closed after the test (its folder handle). */
  const opened = async (p: Promise<FrameStore>) => {
    const s = await p;
    open.push(s);
    return s;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Writes a temp file of `bytes` and commits it as frame `index` of video `hash`. */
  async function put(store: FrameStore, hash: string, index: number, bytes: number): Promise<string> {
    const final = store.framePath(hash, index, { width: 10, height: 10 });
    const video = await store.openVideo(hash);
    try {
      const data = Buffer.alloc(bytes);
      const temp = await video.writeTemp(data);
      await video.commit([{ from: video.dir, temp, final, bytes, sha256: sha256Hex(data) }]);
    } finally {
      await video.close();
    }
    return final;
  }

  it('names files by video, frame index and size', () => {
    assert.equal(frameFileName(7, { width: 398, height: 224 }), '00007_398x224.jpg');
  });

  it('refuses a hash that is not a plain name', async () => {
    const store = await opened(FrameStore.open(dir, dir, 1000));
    assert.throws(() => store.framePath('../x', 0, { width: 1, height: 1 }), /plain name/);
  });

  it('evicts least recently used unpinned files first, and re-indexes on open', async () => {
    const store = await opened(FrameStore.open(dir, dir, 10_000));
    const a = await put(store, 'h1', 0, 3000);
    const b = await put(store, 'h1', 1, 3000);
    const c = await put(store, 'h2', 0, 3000);
    store.touch([a]); // a is now more recent than b and c
    store.pin([c]);
    const d = await put(store, 'h2', 1, 3000); // 12,000 > 10,000: one file must go; b is the LRU unpinned
    assert.equal(await exists(b), false);
    for (const f of [a, c, d]) assert.equal(await exists(f), true, f);
    assert.deepEqual([store.stats().files, store.stats().bytes, store.stats().evictedFiles], [3, 9000, 1]);
    const again = await opened(FrameStore.open(dir, dir, 10_000));
    assert.deepEqual([again.stats().files, again.stats().bytes], [3, 9000]);
    assert.ok(again.has(a) && again.has(c) && again.has(d) && !again.has(b));
  });

  it('keeps pinned files above the cap and says by how much', async () => {
    const store = await opened(FrameStore.open(dir, dir, 1000));
    const final = store.framePath('h', 0, { width: 10, height: 10 });
    store.pin([final]);
    await put(store, 'h', 0, 4000);
    assert.equal(await exists(final), true);
    assert.equal(store.stats().overCapBytes, 3000);
    store.unpin([final]);
    await store.enforceCap();
    assert.equal(await exists(final), false);
    assert.equal(store.stats().overCapBytes, 0);
  });

  it('leaves no temp file after a commit and removes those of dead processes on open', async () => {
    const store = await opened(FrameStore.open(dir, dir, 1e9));
    const f = await put(store, 'h', 3, 10);
    assert.deepEqual((await fs.readdir(path.dirname(f))).sort(), [path.basename(f), 'index.jsonl']);
    const stale = path.join(path.dirname(f), '.tmp-999999999-1-00004_10x10.jpg');
    const live = path.join(path.dirname(f), `.tmp-${process.pid}-77-00005_10x10.jpg`);
    await fs.writeFile(stale, 'x');
    await fs.writeFile(live, 'x');
    await opened(FrameStore.open(dir, dir, 1e9));
    assert.equal(await exists(stale), false, "a dead writer's temp file is removed");
    assert.equal(await exists(live), true, "a live writer's temp file is left alone");
  });

  it('notices files deleted behind its back when a video is synced', async () => {
    const store = await opened(FrameStore.open(dir, dir, 1e9));
    const f = await put(store, 'h', 0, 10);
    await fs.rm(f);
    assert.equal(store.has(f), true);
    const video = await store.openVideo('h');
    await store.syncVideo(video).finally(() => video.close());
    assert.equal(store.has(f), false);
  });

  describe('frameDigests: a frame sent again is checked by its identity (open, fstat), not read and hashed again (issue 45)', () => {
    it('gives the sha256 readFrames gives; the second time without a read', async () => {
      const store = await opened(FrameStore.open(dir, dir, 1e9));
      const f = [await put(store, 'h', 0, 100), await put(store, 'h', 1, 200)];
      const first = await reads(() => store.frameDigests(f));
      assert.deepEqual(
        first.result,
        (await store.readFrames(f)).map((x) => x.sha256),
      );
      assert.equal(first.read, 2);
      const again = await reads(() => store.frameDigests(f));
      assert.deepEqual(again.result, first.result);
      assert.equal(again.read, 0);
      const bytes = await reads(() => store.readFrames(f));
      assert.equal(bytes.read, 2, 'readFrames (data: URLs) always reads');
    });

    it('a frame replaced (another inode), rewritten in place (its ctime) or made a link after a send is refused', async () => {
      const store = await opened(FrameStore.open(dir, dir, 1e9));
      const [a, b, c] = [await put(store, 'h', 0, 100), await put(store, 'h', 1, 100), await put(store, 'h', 2, 100)];
      await store.frameDigests([a, b, c]);
      await fs.writeFile(`${a}.new`, Buffer.alloc(100, 1));
      await fs.rename(`${a}.new`, a);
      await assert.rejects(store.frameDigests([a]), /is not the frame fpsweep wrote there/);
      // In place, the same size: only the change time tells. A write in the same clock tick as the first read keeps
      // it, so write until the file's ctime has moved (the state this test causes), then ask.
      const before = (await fs.stat(b)).ctimeMs;
      for (let k = 1; (await fs.stat(b)).ctimeMs === before; k++) await fs.writeFile(b, Buffer.alloc(100, k % 256));
      await assert.rejects(store.frameDigests([b]), /is not the frame fpsweep wrote there/);
      await fs.rm(c);
      await fs.symlink(a, c);
      await assert.rejects(store.frameDigests([c]), /symbolic link/);
    });
  });

  describe("commit with the identity its bytes were read under (the GPU helper's JPEGs): the first send reads nothing (issue 45)", () => {
    /**
     * Commits frame `index` of `hash` as the GPU path does: written into a private staging folder (as the helper
     * writes it), read there with its identity and hashed, then committed with both; `between` runs after the read
     * and before the commit (on the staged file's path).
     */
    async function putStaged(store: FrameStore, hash: string, index: number, data: Buffer, between?: (staged: string) => Promise<void>) {
      const final = store.framePath(hash, index, { width: 10, height: 10 });
      const video = await store.openVideo(hash);
      const stage = await video.stage();
      try {
        await fs.writeFile(stage.pathOf('0.jpg'), data);
        const got = await stage.readOwnWithIdentity('0.jpg');
        assert.ok(got && 'bytes' in got);
        await between?.(stage.pathOf('0.jpg'));
        const entry = { from: stage, temp: '0.jpg', final, bytes: got.bytes.length, sha256: sha256Hex(got.bytes), identity: got.identity };
        await video.commit([entry]);
      } finally {
        await video.unstage(stage);
        await video.close();
      }
      return final;
    }

    /** Writes `file` with `size` bytes until its `field` time has moved (a coarse clock: the state the test causes). */
    async function rewriteUntilMoved(file: string, size: number, field: 'ctimeMs' | 'mtimeMs') {
      const before = (await fs.stat(file))[field];
      for (let k = 1; (await fs.stat(file))[field] === before; k++) await fs.writeFile(file, Buffer.alloc(size, k % 256));
    }

    it('its first send (frameDigests) is an identity check: no read, the sha256 it was committed with', async () => {
      const store = await opened(FrameStore.open(dir, dir, 1e9));
      const data = [Buffer.alloc(100, 7), Buffer.alloc(200, 9)];
      const f = [await putStaged(store, 'h', 0, data[0]), await putStaged(store, 'h', 1, data[1])];
      const first = await reads(() => store.frameDigests(f));
      assert.deepEqual(first.result, data.map(sha256Hex));
      assert.equal(first.read, 0, 'read and hashed once, at commit');
      assert.equal((await reads(() => store.readFrames(f))).read, 2, 'readFrames (data: URLs) always reads');
    });

    it('written or replaced between that read and the commit: no identity kept, the first send reads it and refuses it', async () => {
      const store = await opened(FrameStore.open(dir, dir, 1e9));
      // In place, the same size: only its mtime tells (the rename moves the ctime anyway).
      const a = await putStaged(store, 'h', 0, Buffer.alloc(100), (staged) => rewriteUntilMoved(staged, 100, 'mtimeMs'));
      const b = await putStaged(store, 'h', 1, Buffer.alloc(100), async (staged) => {
        await fs.writeFile(`${staged}.new`, Buffer.alloc(100, 1));
        await fs.rename(`${staged}.new`, staged);
      });
      for (const f of [a, b]) {
        const got = await reads(() => store.frameDigests([f]).catch((err: Error) => err));
        assert.equal(got.read, 1);
        assert.match(String(got.result), /is not the frame fpsweep wrote there/);
      }
    });

    it('replaced, rewritten in place (its ctime), made a link or a FIFO after the commit: the first send refuses it', async () => {
      const store = await opened(FrameStore.open(dir, dir, 1e9));
      const [a, b, c, d] = [0, 1, 2, 3].map((k) => store.framePath('h', k, { width: 10, height: 10 }));
      for (const [k, f] of [a, b, c, d].entries()) assert.equal(await putStaged(store, 'h', k, Buffer.alloc(100)), f);
      await fs.writeFile(`${a}.new`, Buffer.alloc(100, 1));
      await fs.rename(`${a}.new`, a);
      await assert.rejects(store.frameDigests([a]), /is not the frame fpsweep wrote there/);
      await rewriteUntilMoved(b, 100, 'ctimeMs');
      await assert.rejects(store.frameDigests([b]), /is not the frame fpsweep wrote there/);
      await fs.rm(c);
      await fs.symlink(a, c);
      await assert.rejects(store.frameDigests([c]), /symbolic link/);
      await fs.rm(d);
      execFileSync('mkfifo', [d]);
      await assert.rejects(store.frameDigests([d]), /is not a plain file/, 'refused without waiting for a writer');
    });
  });
});
