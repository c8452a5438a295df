// Whole-file writes that land all at once: a temp file beside the target (same directory, so the rename is
// atomic), written, fsynced, renamed over the target, then the directory fsynced so the rename itself survives a
// power cut. A reader sees the old file or the new one, never half of one; a failed write leaves no temp behind.
import * as nodeFs from 'node:fs';
import * as path from 'node:path';

/** The file operations a write uses; tests pass their own to fail a step or watch the fsyncs. */
export interface AtomicFileSystem {
  mkdir(dir: string, opts: { recursive: true }): Promise<unknown>;
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

async function syncDir(fs: AtomicFileSystem, dir: string): Promise<void> {
  let fh: AtomicFileHandle;
  try {
    fh = await fs.open(dir, 'r');
  } catch (err) {
    if (DIR_SYNC_REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    if (!DIR_SYNC_REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  } finally {
    await fh.close();
  }
}

/** Replaces `file` with `data` in one rename (its directory made first); the bytes are exactly `data`. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? realFs;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = tempName(file);
  try {
    const fh = await fs.open(tmp, 'wx');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDir(fs, path.dirname(file));
}

/**
 * For a file written some other way (a stream): fsyncs `tmp`, renames it to `file` (same directory), fsyncs the
 * directory. `tmp` is the caller's to remove if this throws.
 */
export async function commitFileAtomic(tmp: string, file: string, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? realFs;
  const fh = await fs.open(tmp, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file);
  await syncDir(fs, path.dirname(file));
}

/** `writeFileAtomic` for callers that cannot wait (a child's exit handler): the same steps, synchronous. */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  nodeFs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempName(file);
  try {
    const fd = nodeFs.openSync(tmp, 'wx');
    try {
      nodeFs.writeFileSync(fd, data);
      nodeFs.fsyncSync(fd);
    } finally {
      nodeFs.closeSync(fd);
    }
    nodeFs.renameSync(tmp, file);
  } catch (err) {
    nodeFs.rmSync(tmp, { force: true });
    throw err;
  }
  let dirFd: number | null = null;
  try {
    dirFd = nodeFs.openSync(path.dirname(file), 'r');
    nodeFs.fsyncSync(dirFd);
  } catch (err) {
    if (!DIR_SYNC_REFUSED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  } finally {
    if (dirFd !== null) nodeFs.closeSync(dirFd);
  }
}
