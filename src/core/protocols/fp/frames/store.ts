// The JPEG store: <storeDir>/<hash>/<index>_<w>x<h>.jpg, one file per (video, stored frame index, size).
//
// Keyed by size rather than by the condition's short side: the size is a function of (video, short
// side) (SPEC §2.3), and two short sides that give the same size (448 and "storage" on a 480-stored
// video's sibling rules, any S ≥ the stored short side) then share one file, which holds the same bytes
// either way. Files are written to a temp name in the same folder and renamed (atomic: a crash leaves
// a whole JPEG or none), reused by later requests and re-runs, and served as file:// URLs.
//
// Contained (issue 42): the store is a folder of the containment root (the package root), checked from
// there and held open; each video's folder is opened through it once (O_DIRECTORY|O_NOFOLLOW) and its
// files are created (O_CREAT|O_EXCL|O_NOFOLLOW, unpredictable temp names), renamed, read and deleted
// through that handle (containment/dirHandle.ts), so nothing under the store is followed. A frame is
// reused only when it is ours: a plain file with one name and our uid, of the size and sha256 recorded in
// its folder's index (index.jsonl, appended when we wrote it); anything else is made again (the rename
// replaces whatever was planted under its name). What is sent is read back the same way (readFrames).
//
// Size cap: after each commit, while the store is over `capBytes`, the least recently used file that
// no pending request has pinned is deleted. Pinned files are never deleted, so the store may sit above
// the cap while the pinned set alone exceeds it (reported in stats.overCapBytes).
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { isPlainName } from '../../../package/names';
import type { Dims } from './jpeg';
import { pidAlive } from '../../../runner/lock';
import { ContainmentError } from '../../../containment/containmentError';
import { DirHandle, movedUnchanged, openDirUnder, type FileIdentity } from '../../../containment/dirHandle';
import { unpredictableName } from '../../../containment/freshName';
import { parseBoundedJson } from '../../../io/boundedJson';

const FRAME_FILE = /^(\d+)_(\d+)x(\d+)\.jpg$/;
const TEMP_PREFIX = '.tmp-';
/** A child's private staging folder (the GPU helper's): `.stage-<pid>-<random>`. */
const STAGE_PREFIX = '.stage-';
/** Each video folder's record of the frames we wrote: one JSON line a frame, `{name, size, sha256}`. */
export const FRAME_INDEX = 'index.jsonl';
/** An index line longer than this is not ours (ours are ~110 bytes). */
const MAX_INDEX_LINE = 1024;

export function frameFileName(index: number, dims: Dims): string {
  return `${String(index).padStart(5, '0')}_${dims.width}x${dims.height}.jpg`;
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface StoreStats {
  files: number;
  bytes: number;
  capBytes: number;
  pinnedFiles: number;
  evictedFiles: number;
  evictedBytes: number;
  /** How far above the cap the store was after the last eviction pass (all the rest pinned). */
  overCapBytes: number;
}

/**
 * What we recorded of a frame when we wrote it; `checked` once its bytes were read back and matched; `sent`: the
 * identity of the file whose bytes were last read and matched (by a send, or at commit: StagedFrame.identity); the
 * next send opens and fstats it, no read.
 */
interface FrameRecord {
  size: number;
  sha256: string;
  checked: boolean;
  sent?: FileIdentity;
}

/**
 * A finished frame to commit: `temp` in `from` (the video's folder, or a child's staging folder) → `final`.
 * `identity`: where `sha256` was taken from the file `temp` itself (the GPU helper's JPEGs), that file's identity from
 * the descriptor it was read through, before the read (readOwnWithIdentity); commit keeps it for the first send.
 */
export interface StagedFrame {
  from: DirHandle;
  temp: string;
  final: string;
  bytes: number;
  sha256: string;
  identity?: FileIdentity;
}

/** The owner's pid of a temp or staging name, or NaN. */
function ownerPid(name: string, prefix: string): number {
  return Number(name.slice(prefix.length).split('-')[0]);
}

/** The index lines of one folder (bad lines, too long lines and entries for other names are skipped). */
function parseIndex(text: string): Map<string, { size: number; sha256: string }> {
  const out = new Map<string, { size: number; sha256: string }>();
  for (const line of text.split('\n')) {
    if (!line || line.length > MAX_INDEX_LINE) continue;
    let v: unknown;
    try {
      v = parseBoundedJson(line);
    } catch {
      continue; // a torn line (a crash mid-append): that frame is made again
    }
    const r = v as { name?: unknown; size?: unknown; sha256?: unknown } | null;
    if (
      !r ||
      typeof r.name !== 'string' ||
      !FRAME_FILE.test(r.name) ||
      !Number.isSafeInteger(r.size) ||
      typeof r.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(r.sha256)
    )
      continue;
    out.set(r.name, { size: r.size as number, sha256: r.sha256 });
  }
  return out;
}

/** One video's folder, open for a job: temp files, staging folders and commits go through it. */
export class VideoFolder {
  constructor(
    readonly hash: string,
    readonly dir: DirHandle,
    private readonly store: FrameStore,
  ) {}

  /** A new temp file in the folder holding `data` (an unpredictable name, O_EXCL|O_NOFOLLOW); its name. */
  async writeTemp(data: Uint8Array): Promise<string> {
    const name = unpredictableName(`${TEMP_PREFIX}${process.pid}-`, '.jpg');
    await this.dir.writeFresh(name, data);
    return name;
  }

  /** A fresh private folder (0700, unpredictable name) inside the video's folder for a child to write in. */
  stage(): Promise<DirHandle> {
    return this.dir.privateSub(`${STAGE_PREFIX}${process.pid}-`);
  }

  /** Deletes a staging folder and what is in it (through its handles). */
  async unstage(stage: DirHandle): Promise<void> {
    await stage.close();
    await this.dir.removeTree(path.basename(stage.real));
  }

  commit(entries: readonly StagedFrame[]): Promise<void> {
    return this.store.commit(this, entries);
  }

  async discard(entries: ReadonlyArray<{ from: DirHandle; temp: string }>): Promise<void> {
    for (const e of entries) await e.from.remove(e.temp);
  }

  close(): Promise<void> {
    return this.dir.close();
  }
}

export class FrameStore {
  /** path → size; Map order is recency order (least recently used first). */
  private readonly files = new Map<string, number>();
  /** path → what we recorded when we wrote it. */
  private readonly records = new Map<string, FrameRecord>();
  private readonly pins = new Map<string, number>();
  private total = 0;
  private evicting: Promise<void> | null = null;
  private evictAgain = false;
  private evictedFiles = 0;
  private evictedBytes = 0;
  private overCap = 0;

  private constructor(
    private readonly top: DirHandle,
    readonly capBytes: number,
  ) {}

  /** The store's real path (checked inside the root). */
  get dir(): string {
    return this.top.real;
  }

  /**
   * Opens (creating if needed) and indexes the store `dir`, a folder of `root` checked from `root` (a link on its
   * path is refused); removes temp files and staging folders left by dead processes.
   */
  static async open(root: string, dir: string, capBytes: number): Promise<FrameStore> {
    if (!Number.isFinite(capBytes) || capBytes < 0) throw new RangeError(`store cap must be ≥ 0 bytes, got ${capBytes}`);
    const top = await openDirUnder(root, dir);
    const store = new FrameStore(top, capBytes);
    const found: Array<{ file: string; record: FrameRecord; mtimeMs: number }> = [];
    for (const name of await top.names()) {
      if (!isPlainName(name)) continue;
      const st = await top.lstat(name);
      if (!st?.isDirectory()) continue; // a link in place of a video's folder is refused when the video is asked for
      const video = await top.sub(name, { create: false });
      try {
        found.push(...(await store.scan(video)).map((f) => ({ ...f, file: path.join(video.real, f.name) })));
      } finally {
        await video.close();
      }
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of found) store.add(f.file, f.record);
    return store;
  }

  /** A folder's frames that are ours (index entry, plain file, one name, the recorded size); dead writers' leftovers removed. */
  private async scan(video: DirHandle): Promise<Array<{ name: string; record: FrameRecord; mtimeMs: number }>> {
    const index = await video.readOwn(FRAME_INDEX);
    const recorded = index && 'bytes' in index ? parseIndex(index.bytes.toString('utf8')) : new Map<string, { size: number; sha256: string }>();
    const out: Array<{ name: string; record: FrameRecord; mtimeMs: number }> = [];
    for (const name of await video.names()) {
      for (const prefix of [TEMP_PREFIX, STAGE_PREFIX]) {
        if (!name.startsWith(prefix)) continue;
        const pid = ownerPid(name, prefix);
        if (!(pid === process.pid || (Number.isInteger(pid) && pidAlive(pid)))) await video.removeTree(name);
      }
      const r = recorded.get(name);
      if (!r) continue; // not written by us (or an older fpsweep): made again when asked for
      const st = await video.lstat(name);
      if (!st?.isFile() || st.nlink !== 1 || st.size !== r.size) continue;
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) continue;
      out.push({ name, record: { ...r, checked: false }, mtimeMs: st.mtimeMs });
    }
    return out;
  }

  videoDir(hash: string): string {
    if (!isPlainName(hash)) throw new RangeError(`video hash '${hash}' is not a plain name`);
    return path.join(this.dir, hash);
  }

  framePath(hash: string, index: number, dims: Dims): string {
    return path.join(this.videoDir(hash), frameFileName(index, dims));
  }

  has(file: string): boolean {
    return this.files.has(file);
  }

  /** The video's folder, made if missing, opened through the store's handle (a link there is refused). */
  async openVideo(hash: string): Promise<VideoFolder> {
    this.videoDir(hash);
    return new VideoFolder(hash, await this.top.sub(hash), this);
  }

  /**
   * Re-reads one video's folder, so files removed or added behind our back are known, and checks each frame of
   * `reuse` that was not read back yet: its bytes must be what we recorded, else it is dropped (and made again).
   */
  async syncVideo(video: VideoFolder, reuse: Iterable<string> = []): Promise<void> {
    await this.evictionSettled();
    const dir = path.join(this.dir, video.hash);
    const onDisk = new Map((await this.scan(video.dir)).map((f) => [path.join(dir, f.name), f.record]));
    for (const file of [...this.files.keys()]) {
      if (path.dirname(file) === dir && !onDisk.has(file)) this.remove(file);
    }
    for (const [file, record] of onDisk) {
      const known = this.records.get(file);
      if (known && known.sha256 === record.sha256 && known.size === record.size) continue;
      this.remove(file);
      this.add(file, record);
    }
    for (const file of new Set(reuse)) {
      const r = this.records.get(file);
      if (!r || r.checked) continue;
      const got = await video.dir.readOwn(path.basename(file));
      if (got && 'bytes' in got && got.bytes.length === r.size && sha256Hex(got.bytes) === r.sha256) r.checked = true;
      else this.remove(file);
    }
  }

  /**
   * The bytes of frames to send, read through the video's folder handle and checked against what we recorded when
   * we wrote them (a plain file of ours, one name, its size and sha256); anything else is refused with its path.
   */
  async readFrames(paths: readonly string[]): Promise<Array<{ bytes: Buffer; sha256: string }>> {
    return (await this.checkedFrames(paths, true)).map((f) => ({ bytes: f.bytes!, sha256: f.sha256 }));
  }

  /**
   * The sha256 of frames sent as file:// URLs (vLLM reads the files), checked as readFrames checks them; a frame whose
   * file is the one an earlier call read and matched (the same identity: dirHandle's fileIdentity) is opened and
   * fstat'ed, not read and hashed again (issue 45: a frame goes out in many requests; the run process's CPU a JPEG).
   */
  async frameDigests(paths: readonly string[]): Promise<string[]> {
    return (await this.checkedFrames(paths, false)).map((f) => f.sha256);
  }

  private async checkedFrames(paths: readonly string[], wantBytes: boolean): Promise<Array<{ bytes: Buffer | null; sha256: string }>> {
    const byVideo = new Map<string, number[]>();
    paths.forEach((p, k) => {
      const hash = path.basename(path.dirname(p));
      if (path.dirname(path.dirname(p)) !== this.dir || !isPlainName(hash)) throw new ContainmentError(p, `is not a frame of the store ${this.dir}`);
      byVideo.set(hash, [...(byVideo.get(hash) ?? []), k]);
    });
    const out: Array<{ bytes: Buffer | null; sha256: string }> = new Array(paths.length);
    for (const [hash, ks] of byVideo) {
      const dir = await this.top.sub(hash, { create: false });
      try {
        await Promise.all(
          ks.map(async (k) => {
            const p = paths[k];
            const r = this.records.get(p);
            if (!wantBytes && r?.sent && dir.isSameFileSync(path.basename(p), r.sent)) {
              out[k] = { bytes: null, sha256: r.sha256 };
              return;
            }
            const got = await dir.readOwnWithIdentity(path.basename(p));
            if (!got || !('bytes' in got)) throw new ContainmentError(p, got ? got.refused : 'is gone from the frame store');
            const sha256 = sha256Hex(got.bytes);
            if (!r || r.size !== got.bytes.length || r.sha256 !== sha256)
              throw new ContainmentError(p, 'is not the frame fpsweep wrote there (its size or sha256 differs from the store index)');
            r.sent = got.identity;
            out[k] = { bytes: got.bytes, sha256 };
          }),
        );
      } finally {
        await dir.close();
      }
    }
    return out;
  }

  pin(files: Iterable<string>): void {
    for (const f of files) this.pins.set(f, (this.pins.get(f) ?? 0) + 1);
  }

  unpin(files: Iterable<string>): void {
    for (const f of files) {
      const n = this.pins.get(f) ?? 0;
      if (n <= 1) this.pins.delete(f);
      else this.pins.set(f, n - 1);
    }
  }

  isPinned(file: string): boolean {
    return this.pins.has(file);
  }

  /** Marks files as just used (moves them to the recent end of the eviction order). */
  touch(files: Iterable<string>): void {
    for (const f of files) {
      const size = this.files.get(f);
      if (size === undefined) continue;
      this.files.delete(f);
      this.files.set(f, size);
    }
  }

  /**
   * Renames finished temp files to their final names (through the folders' handles), records them, then enforces the
   * cap. A frame staged with the identity its bytes were read under is checked by identity at its first send, not read
   * and hashed again (issue 45): when, after the rename, its name holds that same file, unwritten (movedUnchanged:
   * the inode, size and mtime; the rename itself moves the ctime), the identity recorded is the one after the rename.
   * Anything else there (another file, a write since the read, a link) records none: the first send reads and checks.
   */
  async commit(video: VideoFolder, entries: readonly StagedFrame[]): Promise<void> {
    // An eviction pass may still be deleting an older copy of one of these names.
    await this.evictionSettled();
    const dir = path.join(this.dir, video.hash);
    const moved = await Promise.all(
      entries.map(async (e) => {
        const name = path.basename(e.final);
        if (path.dirname(e.final) !== dir || !FRAME_FILE.test(name)) throw new RangeError(`${e.final} is not a frame of video ${video.hash}`);
        await e.from.rename(e.temp, name, video.dir);
        if (!e.identity) return undefined;
        const after = video.dir.identitySync(name);
        return after && movedUnchanged(e.identity, after) ? after : undefined;
      }),
    );
    if (entries.length)
      await video.dir.append(
        FRAME_INDEX,
        entries.map((e) => JSON.stringify({ name: path.basename(e.final), size: e.bytes, sha256: e.sha256 }) + '\n').join(''),
      );
    entries.forEach((e, k) => {
      this.remove(e.final); // a re-write replaces the old entry
      this.add(e.final, { size: e.bytes, sha256: e.sha256, checked: true, sent: moved[k] });
    });
    await this.enforceCap();
  }

  /** Deletes least recently used unpinned files while over the cap. Concurrent calls share one pass. */
  async enforceCap(): Promise<void> {
    if (this.evicting) {
      this.evictAgain = true;
      return this.evicting;
    }
    this.evicting = (async () => {
      do {
        this.evictAgain = false;
        await this.evictPass();
      } while (this.evictAgain);
    })().finally(() => {
      this.evicting = null;
    });
    return this.evicting;
  }

  /** Waits until no eviction pass is deleting files (so a file seen or written after it stays). */
  private async evictionSettled(): Promise<void> {
    while (this.evicting) await this.evicting.catch(() => undefined);
  }

  private async evictPass(): Promise<void> {
    if (this.total <= this.capBytes) {
      this.overCap = 0;
      return;
    }
    const victims: Array<[string, number]> = [];
    let excess = this.total - this.capBytes;
    for (const [file, size] of this.files) {
      if (excess <= 0) break;
      if (this.pins.has(file)) continue;
      victims.push([file, size]);
      excess -= size;
    }
    for (const [file] of victims) this.remove(file);
    // One open of each video's folder, every victim in it deleted through that handle.
    const byVideo = new Map<string, string[]>();
    for (const [file] of victims) {
      const hash = path.basename(path.dirname(file));
      byVideo.set(hash, [...(byVideo.get(hash) ?? []), path.basename(file)]);
    }
    await Promise.all(
      [...byVideo].map(async ([hash, names]) => {
        let dir: DirHandle;
        try {
          dir = await this.top.sub(hash, { create: false });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw err;
        }
        try {
          await Promise.all(names.map((n) => dir.remove(n)));
        } finally {
          await dir.close();
        }
      }),
    );
    this.evictedFiles += victims.length;
    this.evictedBytes += victims.reduce((a, [, s]) => a + s, 0);
    this.overCap = Math.max(0, this.total - this.capBytes);
  }

  private add(file: string, record: FrameRecord) {
    this.files.set(file, record.size);
    this.records.set(file, record);
    this.total += record.size;
  }

  private remove(file: string) {
    const size = this.files.get(file);
    this.records.delete(file);
    if (size === undefined) return;
    this.files.delete(file);
    this.total -= size;
  }

  stats(): StoreStats {
    return {
      files: this.files.size,
      bytes: this.total,
      capBytes: this.capBytes,
      pinnedFiles: this.pins.size,
      evictedFiles: this.evictedFiles,
      evictedBytes: this.evictedBytes,
      overCapBytes: this.overCap,
    };
  }

  /** Closes the store's folder handle. */
  close(): Promise<void> {
    return this.top.close();
  }
}
