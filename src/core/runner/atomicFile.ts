// Whole-file writes that land all at once: a temp file beside the target (same directory, so the rename is
// atomic), written, fsynced, renamed over the target, then the directory fsynced so the rename itself survives a
// power cut. A reader sees the old file or the new one, never half of one; a failed write leaves no temp behind.
// The target is under a run's root and its folder is made and checked through the containment module (no link on
// the way); the temp is made with O_EXCL, which never follows a link, and the rename replaces a link planted at the
// target itself rather than writing through it.
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { openDirUnder, SyncDirHandle } from '../containment/dirHandle';
import { tempBeside } from '../containment/freshName';

/** The file operations a write uses; tests pass their own to fail a step or watch the fsyncs. */
export interface AtomicFileSystem {
  open(file: string, flags: string): Promise<AtomicFileHandle>;
  rename(from: string, to: string): Promise<void>;
  rm(file: string, opts: { force: true }): Promise<void>;
}

export interface AtomicFileHandle {
  writeFile(data: string | Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface AtomicWriteOptions {
  fs?: AtomicFileSystem;
}

const realFs: AtomicFileSystem = nodeFs.promises;

let seq = 0;
/** A temp name beside `file`: this process and a counter, so two writers never share one. */
function tempName(file: string): string {
  return `${file}.${process.pid}.${++seq}.tmp`;
}

// Some systems refuse to fsync a directory (EISDIR, EINVAL, EPERM: Windows, some network filesystems); the
// rename has happened, only its durability is then the system's.
const DIR_SYNC_REFUSED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EBADF', 'ENOTSUP']);

/** Opens `file`, runs `use` on it, closes it whatever happens. */
async function withHandle(fs: AtomicFileSystem, file: string, flags: string, use: (fh: AtomicFileHandle) => Promise<void>): Promise<void> {
  const fh = await fs.open(file, flags);
  try {
    await use(fh);
  } finally {
    await fh.close();
  }
}

async function syncDir(fs: AtomicFileSystem, dir: string): Promise<void> {
  try {
    await withHandle(fs, dir, 'r', (fh) => fh.sync());
  } catch (err) {
    if (!DIR_SYNC_REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
}

/** Replaces `file` (under `root`) with `data` in one rename, its folders made first; the bytes are exactly `data`. */
export async function writeFileAtomic(root: string, file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? realFs;
  // The folder held open (checked from the root): the temp, the rename and the fsync go through its descriptor, so a
  // folder of the path swapped for a link meanwhile changes nothing outside (issue 42).
  const dir = await openDirUnder(root, path.dirname(file));
  try {
    const name = path.basename(file);
    const target = dir.at(name);
    const tmp = dir.at(tempName(name));
    try {
      await withHandle(fs, tmp, 'wx', async (fh) => {
        await fh.writeFile(data);
        await fh.sync();
      });
      await fs.rename(tmp, target);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    await syncDir(fs, dir.self);
  } finally {
    await dir.close();
  }
}

/**
 * For a file written some other way (a stream): fsyncs `tmp`, renames it to `file` (same directory, under `root`),
 * fsyncs the directory. `tmp` is the caller's to remove if this throws.
 */
export async function commitFileAtomic(root: string, tmp: string, file: string, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? realFs;
  const dir = await openDirUnder(root, path.dirname(file));
  try {
    await withHandle(fs, tmp, 'r', (fh) => fh.sync());
    await fs.rename(tmp, dir.at(path.basename(file)));
    await syncDir(fs, dir.self);
  } finally {
    await dir.close();
  }
}

/**
 * Replaces `file` (under `root`) with what `write` streams into the writable it is given (a log copied, a tarball
 * packed), in one rename: the temp beside `file` has an unpredictable name (freshName.ts) and is made
 * O_CREAT|O_EXCL|O_NOFOLLOW through its folder held open (checked from the root), then committed as commitFileAtomic
 * does. When `write` fails (its source's error included), the temp is removed and `file` is as it was.
 */
export async function writeStreamAtomic(root: string, file: string, write: (out: Writable) => Promise<void>, opts: AtomicWriteOptions = {}): Promise<void> {
  const dir = await openDirUnder(root, path.dirname(file));
  const tmp = path.basename(tempBeside(file));
  try {
    try {
      // The stream closes the handle when it has finished, failed or been destroyed.
      const out = (await dir.openFresh(tmp)).createWriteStream();
      try {
        await write(out);
        if (!out.writableFinished) throw new Error(`${file}: the stream written was not ended: not committed`);
      } finally {
        out.destroy();
      }
      await commitFileAtomic(root, dir.at(tmp), file, opts);
    } catch (err) {
      await dir.remove(tmp);
      throw err;
    }
  } finally {
    await dir.close();
  }
}

/**
 * `writeFileAtomic` for callers that cannot wait (a child's exit handler): the same steps, synchronous, and the same
 * way: the folder held open (checked from the root), the temp, the rename and the fsync through its descriptor.
 */
export function writeFileAtomicSync(root: string, file: string, data: string | Uint8Array): void {
  const dir = SyncDirHandle.open(root, path.dirname(file));
  try {
    const name = path.basename(file);
    const tmp = dir.at(tempName(name));
    try {
      const fd = nodeFs.openSync(tmp, 'wx');
      try {
        nodeFs.writeFileSync(fd, data);
        nodeFs.fsyncSync(fd);
      } finally {
        nodeFs.closeSync(fd);
      }
      nodeFs.renameSync(tmp, dir.at(name));
    } catch (err) {
      nodeFs.rmSync(tmp, { force: true });
      throw err;
    }
    try {
      nodeFs.fsyncSync(dir.fd);
    } catch (err) {
      if (!DIR_SYNC_REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
  } finally {
    dir.close();
  }
}
