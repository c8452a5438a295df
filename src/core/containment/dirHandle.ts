// A folder under a root held open (issue 42): checked once when it is opened, then every create, rename, read and
// delete in it goes through the open descriptor, so a folder of its path swapped for a link afterwards changes
// nothing. On Linux a name in the folder is reached as /proc/self/fd/<fd>/<name>: the kernel walks from the open
// folder itself (the *at() system calls Node does not have), and O_NOFOLLOW refuses a link at the name. Elsewhere
// (no /proc) the folder's real path is used, with the component check and O_NOFOLLOW as the guards.
//
// The frame store's hot path (tens of thousands of JPEGs a run) opens a video's folder once and creates, renames
// and reads its files through this handle: one open and one /proc check a folder, not a walk of the path a file.
import { closeSync, existsSync, constants as C, fstatSync, lstatSync, openSync, promises as fs, readlinkSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { ContainmentError } from './containmentError';
import { unpredictableName } from './freshName';
import { mkdirUnder, mkdirUnderSync } from './mkdirs';
import { realRootOf, realRootOfSync, resolveInside } from './resolve';

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const DIRECTORY = C.O_DIRECTORY ?? 0;
const OPEN_DIR = C.O_RDONLY | DIRECTORY | NOFOLLOW;
const FRESH = C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW;
const APPEND = C.O_WRONLY | C.O_APPEND | C.O_CREAT | NOFOLLOW;
const READ = C.O_RDONLY | NOFOLLOW;
const NONBLOCK = C.O_NONBLOCK ?? 0;
/** Names through the open descriptor (Linux); elsewhere by the folder's real path. */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** One name in a folder: not empty, no separator, not `.` or `..`. */
function checkName(name: string): void {
  if (!name || name === '.' || name === '..' || /[\\/\0]/.test(name)) throw new RangeError(`'${name}' is not one name in a folder`);
}

function isInside(realRoot: string, p: string): boolean {
  return p === realRoot || p.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

const ourUid = typeof process.getuid === 'function' ? process.getuid() : null;

/** Why a file opened to be read back as ours is not (a second name, another owner, not a plain file), or null. */
/**
 * What tells a file's bytes apart without reading them: device, inode, size and the change time. A replacement
 * changes the inode, a write the size or the ctime, and no user can set a ctime back (utimes sets mtime and atime).
 * Its limit: the kernel stamps ctime from a coarse clock (a few ms), so a same-size write by our own uid in the same
 * tick as the read that recorded the identity goes unseen; others cannot write a file of ours (notOurs).
 * The mtime is kept for movedUnchanged: a rename moves the ctime, never the mtime.
 */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  ctimeMs: number;
  mtimeMs: number;
}

export function fileIdentity(st: Stats): FileIdentity {
  return { dev: st.dev, ino: st.ino, size: st.size, ctimeMs: st.ctimeMs, mtimeMs: st.mtimeMs };
}

export function sameFileIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return movedUnchanged(a, b) && a.ctimeMs === b.ctimeMs;
}

/**
 * Whether `after` is the file `before` identifies, moved by a rename and not written since: the same inode, size and
 * modification time (a rename sets the ctime, so sameFileIdentity cannot tell). Weaker than sameFileIdentity against
 * our own uid (a utimes can put an mtime back; another user can set it only to now, which is seen), so it serves only
 * across a rename of ours inside a private folder of ours (FrameStore.commit), never for a later check.
 */
export function movedUnchanged(before: FileIdentity, after: FileIdentity): boolean {
  return before.dev === after.dev && before.ino === after.ino && before.size === after.size && before.mtimeMs === after.mtimeMs;
}

export function notOurs(st: Stats): string | null {
  if (!st.isFile()) return 'is not a plain file';
  if (st.nlink !== 1) return 'has another name (a hard link)';
  if (ourUid !== null && st.uid !== ourUid) return `belongs to another user (uid ${st.uid})`;
  return null;
}

/**
 * `size` bytes from the start of `fh` (fewer where it ends first), as fh.readFile() reads a plain file, without the
 * fstat readFile makes for the size: the caller's own fstat gave it (issue 45: one call less a JPEG).
 */
async function readSize(fh: fs.FileHandle, size: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const { bytesRead } = await fh.read(bytes, got, size - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === size ? bytes : bytes.subarray(0, got);
}

export class DirHandle {
  private closed = false;

  private constructor(
    private readonly fh: fs.FileHandle,
    /** The folder's real path (checked inside the root when it was opened). */
    readonly real: string,
    readonly realRoot: string,
  ) {}

  /** A path naming `name` in this folder through the open descriptor. */
  at(name: string): string {
    checkName(name);
    if (this.closed) throw new Error(`${this.real}: folder handle used after close`);
    return PROC_FD ? `/proc/self/fd/${this.fh.fd}/${name}` : path.join(this.real, name);
  }

  /** This folder itself through its descriptor (to open it, e.g. to fsync it after a rename in it). */
  get self(): string {
    if (this.closed) throw new Error(`${this.real}: folder handle used after close`);
    return PROC_FD ? `/proc/self/fd/${this.fh.fd}` : this.real;
  }

  /** The real path of `name` in this folder, for messages and for others (a server, a child) to use. */
  pathOf(name: string): string {
    checkName(name);
    return path.join(this.real, name);
  }

  private refused(err: unknown, name: string): Error {
    return (err as NodeJS.ErrnoException).code === 'ELOOP' ? new ContainmentError(this.pathOf(name), 'is a symbolic link') : (err as Error);
  }

  /** Opens a folder (`opener` gives its path) with O_DIRECTORY|O_NOFOLLOW and checks where it landed. */
  private static async openAt(opener: string, shown: string, realRoot: string): Promise<DirHandle> {
    const fh = await fs.open(opener, OPEN_DIR).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ContainmentError(shown, 'is a symbolic link');
      if (code === 'ENOTDIR') throw new ContainmentError(shown, 'is not a folder');
      throw err;
    });
    let real = shown;
    try {
      if (PROC_FD) {
        real = readlinkSync(`/proc/self/fd/${fh.fd}`);
        if (!isInside(realRoot, real))
          throw new ContainmentError(shown, `was opened outside the root (at ${real}): a folder of its path was swapped for a link`);
      }
      if (!(await fh.stat()).isDirectory()) throw new ContainmentError(shown, 'is not a folder');
    } catch (err) {
      await fh.close();
      throw err;
    }
    return new DirHandle(fh, real, realRoot);
  }

  /** `dir` under `root` (made with its folders unless `create: false`), checked from the root and held open. */
  static async open(root: string, dir: string, opts: { create?: boolean } = {}): Promise<DirHandle> {
    const realRoot = await realRootOf(root);
    const real = opts.create === false ? (await resolveInside(root, dir)).real : await mkdirUnder(root, dir);
    return DirHandle.openAt(real, real, realRoot);
  }

  /** The folder `name` in this one (made if missing, with `mode`), held open; a link there is refused. */
  async sub(name: string, opts: { create?: boolean; mode?: number } = {}): Promise<DirHandle> {
    if (opts.create !== false)
      await fs
        .mkdir(this.at(name), opts.mode ?? 0o777)
        .catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'EEXIST' ? undefined : Promise.reject(err)));
    return DirHandle.openAt(this.at(name), this.pathOf(name), this.realRoot);
  }

  /**
   * A fresh private folder in this one for a child to write in: an unpredictable name (`prefix` + 16 random hex),
   * mode 0700, made by us (EEXIST if anything is there: nothing planted is ever used). Held open.
   */
  async privateSub(prefix: string): Promise<DirHandle> {
    const name = unpredictableName(prefix);
    await fs.mkdir(this.at(name), 0o700);
    const d = await DirHandle.openAt(this.at(name), this.pathOf(name), this.realRoot);
    const st = await d.fh.stat();
    if ((st.mode & 0o077) !== 0 || (ourUid !== null && st.uid !== ourUid)) {
      await d.close();
      throw new ContainmentError(d.real, 'is not a private folder of ours (mode 0700, our uid)');
    }
    return d;
  }

  /** A new file `name` (O_CREAT|O_EXCL|O_NOFOLLOW): EEXIST when anything is there, a link included. */
  async openFresh(name: string, mode = 0o644): Promise<fs.FileHandle> {
    return fs.open(this.at(name), FRESH, mode).catch((err: unknown) => Promise.reject(this.refused(err, name)));
  }

  /** Writes `data` as the new file `name` (openFresh). */
  async writeFresh(name: string, data: Uint8Array | string): Promise<void> {
    const fh = await this.openFresh(name);
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
  }

  /** Appends `text` to `name` (made if missing); a link is refused, and so is a file with a second name. */
  async append(name: string, text: string): Promise<void> {
    const fh = await fs.open(this.at(name), APPEND, 0o644).catch((err: unknown) => Promise.reject(this.refused(err, name)));
    try {
      const why = notOurs(await fh.stat());
      if (why) throw new ContainmentError(this.pathOf(name), why);
      await fh.write(text);
    } finally {
      await fh.close();
    }
  }

  /**
   * `name`'s bytes when it is ours: a plain file with one name, of our uid, opened without following a link.
   * Null when it is missing; `{ refused }` with why when something else is there.
   */
  async readOwn(name: string): Promise<{ bytes: Buffer } | { refused: string } | null> {
    const got = await this.readOwnWithIdentity(name);
    return got && 'bytes' in got ? { bytes: got.bytes } : got;
  }

  /**
   * Whether `name` is still the file `known` identifies (fileIdentity), asked with one synchronous lstat through the
   * folder's descriptor: it opens nothing, so neither a link (lstat describes the link itself) nor a FIFO can make it
   * follow or wait; a few µs on the event loop against ~0.2 ms of CPU for an open, fstat and close as promises
   * (issue 45: every frame of every request). False for anything else (missing, a link, not ours, changed): the
   * caller then reads it and says why.
   */
  isSameFileSync(name: string, known: FileIdentity): boolean {
    const now = this.identitySync(name);
    return now !== null && sameFileIdentity(known, now);
  }

  /**
   * The identity of `name` when it is ours (a plain file, one name, our uid), else null (missing, a link, a FIFO,
   * anything else): the same synchronous lstat as isSameFileSync.
   */
  identitySync(name: string): FileIdentity | null {
    let st: Stats | undefined;
    try {
      st = lstatSync(this.at(name), { throwIfNoEntry: false });
    } catch {
      return null;
    }
    return st && notOurs(st) === null ? fileIdentity(st) : null;
  }

  /** readOwn, with the identity of the file read (fileIdentity, taken before the read); opened as openRead opens. */
  async readOwnWithIdentity(name: string): Promise<{ bytes: Buffer; identity: FileIdentity } | { refused: string } | null> {
    let opened: { fh: fs.FileHandle; st: Stats };
    try {
      opened = await this.openReadStat(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (err instanceof ContainmentError) return { refused: err.reason };
      throw err;
    }
    const { fh, st } = opened;
    try {
      const why = notOurs(st);
      if (why) return { refused: why };
      const identity = fileIdentity(st);
      // The identity from before the read: a write during or after it changes the ctime (or the size), so the
      // caller's next check against this identity fails and it reads again.
      return { bytes: await readSize(fh, st.size), identity };
    } finally {
      await fh.close();
    }
  }

  /**
   * `name` opened to be read (O_NOFOLLOW, and O_NONBLOCK so a FIFO put there cannot hang the open), when the opened
   * descriptor is a plain file (fstat); a link, or anything else, is refused with its path: what is read is what was
   * checked, whatever was at the name a moment before (a folder listing, an lstat).
   */
  async openRead(name: string): Promise<fs.FileHandle> {
    return (await this.openReadStat(name)).fh;
  }

  /** openRead, with the fstat it checked. */
  private async openReadStat(name: string): Promise<{ fh: fs.FileHandle; st: Stats }> {
    const fh = await fs.open(this.at(name), READ | NONBLOCK).catch((err: unknown) => Promise.reject(this.refused(err, name)));
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new ContainmentError(this.pathOf(name), 'is not a plain file');
      return { fh, st };
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** lstat of `name` (a link is not followed), or null when missing. */
  async lstat(name: string): Promise<Stats | null> {
    return fs.lstat(this.at(name)).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? null : Promise.reject(err)));
  }

  /** The names in this folder. */
  names(): Promise<string[]> {
    return fs.readdir(PROC_FD ? `/proc/self/fd/${this.fh.fd}` : this.real);
  }

  /** Renames `from` in this folder to `to` in `into` (this folder by default): both ends through open folders. */
  async rename(from: string, to: string, into: DirHandle = this): Promise<void> {
    await fs.rename(this.at(from), into.at(to));
  }

  /** Deletes the file or link `name` (a link itself, never what it points at); nothing there is not an error. */
  async remove(name: string): Promise<void> {
    await fs.unlink(this.at(name)).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : Promise.reject(err)));
  }

  /** Deletes the folder `name` and everything in it, each level through its own open handle; a link is unlinked. */
  async removeTree(name: string): Promise<void> {
    const st = await this.lstat(name);
    if (!st) return;
    if (!st.isDirectory()) return this.remove(name);
    let sub: DirHandle;
    try {
      sub = await this.sub(name, { create: false });
    } catch (err) {
      if (err instanceof ContainmentError) return this.remove(name); // swapped for a link meanwhile: the link goes
      throw err;
    }
    try {
      for (const n of await sub.names()) await sub.removeTree(n);
    } finally {
      await sub.close();
    }
    await fs.rmdir(this.at(name)).catch((err: unknown) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : Promise.reject(err)));
  }

  /** The folder's own mode bits and owner (fstat of the held descriptor). */
  async stat(): Promise<Stats> {
    return this.fh.stat();
  }

  /** Sets this folder's mode through its descriptor (fchmod: never a path, never a link). */
  async chmod(mode: number): Promise<void> {
    await this.fh.chmod(mode);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fh.close();
  }
}

/** `dir` under `root` (made with its folders unless `create: false`), checked from the root and held open. */
export function openDirUnder(root: string, dir: string, opts: { create?: boolean } = {}): Promise<DirHandle> {
  return DirHandle.open(root, dir, opts);
}

/**
 * A folder held open for callers that cannot wait (an exit handler writing servers.json): made and checked from the
 * root, opened O_DIRECTORY|O_NOFOLLOW, its descriptor's real path checked inside the root; names in it are reached
 * through the descriptor (`at`), as DirHandle's are.
 */
export class SyncDirHandle {
  private closed = false;
  private constructor(
    readonly fd: number,
    readonly real: string,
  ) {}

  static open(root: string, dir: string): SyncDirHandle {
    const realRoot = realRootOfSync(root);
    const shown = mkdirUnderSync(root, dir);
    let fd: number;
    try {
      fd = openSync(shown, OPEN_DIR);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ContainmentError(shown, 'is a symbolic link');
      if (code === 'ENOTDIR') throw new ContainmentError(shown, 'is not a folder');
      throw err;
    }
    try {
      const real = PROC_FD ? readlinkSync(`/proc/self/fd/${fd}`) : shown;
      if (!isInside(realRoot, real)) throw new ContainmentError(shown, `was opened outside the root (at ${real}): a folder of its path was swapped for a link`);
      if (!fstatSync(fd).isDirectory()) throw new ContainmentError(shown, 'is not a folder');
      return new SyncDirHandle(fd, real);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** A path naming `name` in this folder through the open descriptor. */
  at(name: string): string {
    checkName(name);
    if (this.closed) throw new Error(`${this.real}: folder handle used after close`);
    return PROC_FD ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.real, name);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
