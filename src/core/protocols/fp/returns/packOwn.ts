// The returns' tar stream packed from our own descriptors (issue 42, point 4): every folder is opened from the package
// root with O_DIRECTORY|O_NOFOLLOW (dirHandle.ts) and every file through its folder's descriptor with O_NOFOLLOW,
// checked from fstat (a plain file with one name) and read through that descriptor, so a file or folder swapped for a
// link after the check is refused with its path, never followed. node-tar's `tar.c` reopened each path by name.
// The headers are node-tar's own (Header, Pax), filled as its `tar.c({ portable: true })` fills them, in its order
// (a folder's entries queued after what was queued before them), so the stream is the one `tar.c` made, byte for byte.
import { constants as C, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { Header, Pax } from 'tar';
import { ContainmentError } from '../../../containment/containmentError';
import { openDirUnder, type DirHandle } from '../../../containment/dirHandle';

const READ = C.O_RDONLY | (C.O_NOFOLLOW ?? 0);
const BLOCK = 512;
const CHUNK = 1 << 20;

/** node-tar's modeFix for a portable archive: the owner may read and write, no group or other write; folders listable. */
function portableMode(mode: number, isDir: boolean): number {
  let m = ((mode & 0o7777) | 0o600) & ~0o22;
  if (isDir) {
    if (m & 0o400) m |= 0o100;
    if (m & 0o40) m |= 0o10;
    if (m & 0o4) m |= 0o1;
  }
  return m;
}

/** The header blocks of one entry, as node-tar's WriteEntry writes them with `portable` (a pax header first when needed). */
function headerBlocks(tarPath: string, st: Stats, isDir: boolean): Buffer[] {
  // portable: no uid, gid, uname, atime, ctime; a folder has no mtime either.
  const mtime = isDir ? undefined : st.mtime;
  const size = isDir ? 0 : st.size;
  const header = new Header({ path: tarPath, mode: portableMode(st.mode, isDir), size, mtime, type: isDir ? 'Directory' : 'File' });
  const blocks: Buffer[] = [];
  if (header.encode()) blocks.push(new Pax({ mtime, path: tarPath, size: header.size }).encode());
  blocks.push(header.block!);
  return blocks;
}

/** One entry waiting to be packed: its name in a folder held open, and its path in the archive. */
interface Job {
  dir: SharedDir;
  name: string;
  tarPath: string;
}

/** A folder handle shared by the jobs of its entries: closed when the last of them is packed. */
class SharedDir {
  private users = 0;
  constructor(readonly handle: DirHandle) {}
  use(): this {
    this.users++;
    return this;
  }
  async release(): Promise<void> {
    if (--this.users === 0) await this.handle.close();
  }
}

const notPacked = (where: string, why: string) => new ContainmentError(where, `${why}: the returns never pack it`);

/** A file's bytes read through its own descriptor, exactly `size` of them (fewer: it changed while packed), padded. */
async function* fileBody(fh: fs.FileHandle, size: number, where: string): AsyncGenerator<Buffer> {
  let left = size;
  while (left > 0) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
    const { bytesRead } = await fh.read(buf, 0, buf.length, size - left);
    if (bytesRead === 0) throw new Error(`${where}: shrank while it was packed (${size - left} of ${size} bytes read)`);
    left -= bytesRead;
    yield buf.subarray(0, bytesRead);
  }
  if (size % BLOCK) yield Buffer.alloc(BLOCK - (size % BLOCK));
}

/**
 * The uncompressed tar stream of `paths` (relative to `root`, '/'-separated), each folder with everything under it.
 * A link anywhere (a path's folders, the path, anything under it), a file with a second name, or anything but a plain
 * file or folder is refused with its path (ContainmentError): checked on the descriptor that is then read.
 */
export async function* packOwn(root: string, paths: readonly string[]): AsyncGenerator<Buffer> {
  const queue: Job[] = [];
  try {
    for (const rel of paths) {
      const abs = path.join(root, rel);
      const dir = new SharedDir(await openDirUnder(root, path.dirname(abs), { create: false }));
      queue.push({ dir: dir.use(), name: path.basename(abs), tarPath: rel });
    }
    while (queue.length) {
      const job = queue.shift()!;
      try {
        yield* packOne(job, queue);
      } finally {
        await job.dir.release();
      }
    }
    yield Buffer.alloc(2 * BLOCK); // two zero blocks end the archive
  } finally {
    for (const job of queue.splice(0)) await job.dir.release();
  }
}

async function* packOne(job: Job, queue: Job[]): AsyncGenerator<Buffer> {
  const where = job.dir.handle.pathOf(job.name);
  const lst = await job.dir.handle.lstat(job.name);
  if (!lst) throw Object.assign(new Error(`ENOENT: no such file or directory, '${where}'`), { code: 'ENOENT' });
  if (lst.isSymbolicLink()) throw notPacked(where, 'is a symbolic link');
  if (lst.isDirectory()) {
    // Opened O_DIRECTORY|O_NOFOLLOW through its folder's descriptor: a link put there since is refused.
    const sub = new SharedDir(await job.dir.handle.sub(job.name, { create: false }));
    sub.use();
    try {
      yield* headerBlocks(`${job.tarPath}/`, await sub.handle.stat(), true);
      // Queued behind what is already waiting, in the folder's own order, as node-tar's Pack queues them.
      for (const name of await sub.handle.names()) queue.push({ dir: sub.use(), name, tarPath: `${job.tarPath}/${name}` });
    } finally {
      await sub.release();
    }
    return;
  }
  if (!lst.isFile()) throw notPacked(where, 'is not a plain file or folder');
  const fh = await fs.open(job.dir.handle.at(job.name), READ).catch((err: unknown) => {
    throw (err as NodeJS.ErrnoException).code === 'ELOOP' ? notPacked(where, 'is a symbolic link') : err;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notPacked(where, 'is not a plain file');
    if (st.nlink !== 1) throw notPacked(where, 'has another name (a hard link)');
    yield* headerBlocks(job.tarPath, st, false);
    yield* fileBody(fh, st.size, where);
  } finally {
    await fh.close();
  }
}
