// The JPEG store: <storeDir>/<hash>/<index>_<w>x<h>.jpg, one file per (video, stored frame index, size).
//
// Keyed by size rather than by the condition's short side: the size is a function of (video, short
// side) (SPEC §2.3), and two short sides that give the same size (448 and "storage" on a 480-stored
// video's sibling rules, any S ≥ the stored short side) then share one file, which holds the same bytes
// either way. Files are written to a temp name in the same folder and renamed (atomic: a crash leaves
// a whole JPEG or none), reused by later requests and re-runs, and served as file:// URLs.
//
// Size cap: after each commit, while the store is over `capBytes`, the least recently used file that
// no pending request has pinned is deleted. Pinned files are never deleted, so the store may sit above
// the cap while the pinned set alone exceeds it (reported in stats.overCapBytes).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isPlainName } from '../../../package/names';
import type { Dims } from './jpeg';
import { pidAlive } from '../../../runner/lock';
import { mkdirUnder, removeUnder, renameUnder } from '../../../containment/rootFs';

const FRAME_FILE = /^(\d+)_(\d+)x(\d+)\.jpg$/;
const TEMP_PREFIX = '.tmp-';
// One counter per process, not per store: two stores open on one folder in one process (a test, a
// CLI verb beside the worker's pipeline) must never pick the same temp name.
let tempCounter = 0;

export function frameFileName(index: number, dims: Dims): string {
  return `${String(index).padStart(5, '0')}_${dims.width}x${dims.height}.jpg`;
}

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

export class FrameStore {
  /** path → size; Map order is recency order (least recently used first). */
  private readonly files = new Map<string, number>();
  private readonly pins = new Map<string, number>();
  private total = 0;
  private evicting: Promise<void> | null = null;
  private evictAgain = false;
  private evictedFiles = 0;
  private evictedBytes = 0;
  private overCap = 0;

  private constructor(
    readonly dir: string,
    readonly capBytes: number,
  ) {}

  /** Opens (creating if needed) and indexes the store; removes temp files left by dead processes. */
  static async open(dir: string, capBytes: number): Promise<FrameStore> {
    if (!Number.isFinite(capBytes) || capBytes < 0) throw new RangeError(`store cap must be ≥ 0 bytes, got ${capBytes}`);
    const store = new FrameStore(path.resolve(dir), capBytes);
    await mkdirUnder(store.dir, store.dir);
    const found: Array<{ file: string; size: number; mtimeMs: number }> = [];
    for (const d of await fs.readdir(store.dir, { withFileTypes: true })) {
      if (!d.isDirectory() || !isPlainName(d.name)) continue;
      const videoDir = path.join(store.dir, d.name);
      for (const name of await fs.readdir(videoDir)) {
        const file = path.join(videoDir, name);
        if (name.startsWith(TEMP_PREFIX)) {
          const pid = Number(name.slice(TEMP_PREFIX.length).split('-')[0]);
          if (!(pid === process.pid || (Number.isInteger(pid) && pidAlive(pid)))) await removeUnder(store.dir, file);
          continue;
        }
        if (!FRAME_FILE.test(name)) continue;
        const st = await fs.stat(file).catch(() => null);
        if (st?.isFile()) found.push({ file, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of found) store.add(f.file, f.size);
    return store;
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

  /** Re-reads one video's folder, so files removed or added behind our back are known. */
  async syncVideo(hash: string): Promise<void> {
    const dir = this.videoDir(hash);
    await this.evictionSettled();
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      names = [];
    }
    const onDisk = new Set(names.filter((n) => FRAME_FILE.test(n)).map((n) => path.join(dir, n)));
    for (const file of [...this.files.keys()]) {
      if (path.dirname(file) === dir && !onDisk.has(file)) this.remove(file);
    }
    for (const file of onDisk) {
      if (this.files.has(file)) continue;
      const st = await fs.stat(file).catch(() => null);
      if (st?.isFile()) this.add(file, st.size);
    }
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

  /** A temp name next to `finalPath` (same filesystem, so the rename is atomic). */
  tempPath(finalPath: string): string {
    return path.join(path.dirname(finalPath), `${TEMP_PREFIX}${process.pid}-${++tempCounter}-${path.basename(finalPath)}`);
  }

  /** Renames finished temp files to their final names, then enforces the cap. */
  async commit(entries: ReadonlyArray<{ temp: string; final: string; bytes: number }>): Promise<void> {
    // An eviction pass may still be deleting an older copy of one of these names.
    await this.evictionSettled();
    await Promise.all(
      entries.map(async (e) => {
        await renameUnder(this.dir, e.temp, e.final);
        this.remove(e.final); // a re-write replaces the old entry's size
        this.add(e.final, e.bytes);
      }),
    );
    await this.enforceCap();
  }

  async discard(temps: Iterable<string>): Promise<void> {
    await Promise.all([...temps].map((t) => removeUnder(this.dir, t)));
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
    await Promise.all(victims.map(([file]) => removeUnder(this.dir, file)));
    this.evictedFiles += victims.length;
    this.evictedBytes += victims.reduce((a, [, s]) => a + s, 0);
    this.overCap = Math.max(0, this.total - this.capBytes);
  }

  private add(file: string, size: number) {
    this.files.set(file, size);
    this.total += size;
  }

  private remove(file: string) {
    const size = this.files.get(file);
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
}
