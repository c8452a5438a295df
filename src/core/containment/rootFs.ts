// Every write, append, rename, mkdir and delete a run makes under its root goes through here (issue 33). A path is
// resolved on disk one component at a time (resolve.ts): a link anywhere below the root is refused with its path,
// `..` never climbs above the root. Files are opened with O_NOFOLLOW, so a link put in place after the check is not
// followed either; on Linux the opened descriptor's real path (/proc/self/fd) is checked inside the root as well, so
// a folder swapped for a link between the check and the open is caught. A file opened to be appended to or
// truncated must have no other name (a hard link would carry the write to a file elsewhere).
// Renames and deletes go through the open folders they act in (dirHandle.ts: O_DIRECTORY|O_NOFOLLOW, the descriptor's
// real path checked, then /proc/self/fd/<fd>/<name>), so a folder of the path swapped for a link after the check
// changes nothing outside (issue 42).
import { closeSync, constants as C, fstatSync, openSync, promises as fs, readlinkSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { ContainmentError } from './containmentError';
import { resolveInside, resolveInsideSync } from './resolve';
import { mkdirUnder, mkdirUnderSync } from './mkdirs';
import { openDirUnder, type DirHandle } from './dirHandle';

/** 0 where the system has no O_NOFOLLOW (Windows): the component check is then the only guard. */
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const APPEND = C.O_WRONLY | C.O_APPEND | C.O_CREAT | NOFOLLOW;
// No O_TRUNC: a file with a second name must be refused before a byte of it is cut (truncated after the check).
const TRUNCATE = C.O_WRONLY | C.O_CREAT | NOFOLLOW;
const FRESH = C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW;
const READ_WRITE = C.O_RDWR | NOFOLLOW;

function isInside(realRoot: string, p: string): boolean {
  return p === realRoot || p.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

/** The real path of `file` under `root`, its folder made; `file` itself may be missing, never a link. */
async function fileUnder(root: string, file: string): Promise<{ real: string; realRoot: string }> {
  const dir = await mkdirUnder(root, path.dirname(file));
  const inside = await resolveInside(root, path.join(dir, path.basename(file)));
  return { real: inside.real, realRoot: inside.realRoot };
}

/** Refuses a descriptor that is not where it was asked for (Linux): its real path outside, or a second name. */
function checkOpened(fd: number, realRoot: string, file: string, fresh: boolean): void {
  let where: string | null = null;
  try {
    where = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    where = null; // no /proc: the component check and O_NOFOLLOW are the guards
  }
  if (where !== null && where.startsWith('/') && !isInside(realRoot, where))
    throw new ContainmentError(file, `was opened outside the root (at ${where}): a folder of its path was swapped for a link`);
  if (!fresh && fstatSync(fd).nlink > 1) throw new ContainmentError(file, 'has another name (a hard link): a write would reach that file too');
}

function refusedLink(err: unknown, file: string): Error {
  // O_NOFOLLOW on a link: ELOOP (Linux, macOS); O_EXCL on a link: EEXIST, which the caller's own code expects.
  return (err as NodeJS.ErrnoException).code === 'ELOOP' ? new ContainmentError(file, 'is a symbolic link') : (err as Error);
}

async function openChecked(root: string, file: string, flags: number, fresh: boolean): Promise<fs.FileHandle> {
  const { real, realRoot } = await fileUnder(root, file);
  const fh = await fs.open(real, flags, 0o644).catch((err: unknown) => Promise.reject(refusedLink(err, real)));
  try {
    checkOpened(fh.fd, realRoot, real, fresh);
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** `file` opened to append to (made if missing, with its folders). */
export function openAppendUnder(root: string, file: string): Promise<fs.FileHandle> {
  return openChecked(root, file, APPEND, false);
}

/** `file` opened empty to be written from the start (made if missing). */
export async function openTruncatedUnder(root: string, file: string): Promise<fs.FileHandle> {
  const fh = await openChecked(root, file, TRUNCATE, false);
  await fh.truncate(0);
  return fh;
}

/** A new file that must not exist yet (a temp, a staged output): EEXIST if anything is there, a link included. */
export function openFreshUnder(root: string, file: string): Promise<fs.FileHandle> {
  return openChecked(root, file, FRESH, true);
}

/** An existing file opened to be read and rewritten in place (a torn tail cut off). */
export function openReadWriteUnder(root: string, file: string): Promise<fs.FileHandle> {
  return openChecked(root, file, READ_WRITE, false);
}

/** `openAppendUnder` for callers that cannot wait (a child's stdio, an exit handler): a descriptor. */
export function openAppendUnderSync(root: string, file: string): number {
  const dir = mkdirUnderSync(root, path.dirname(file));
  const { real, realRoot } = resolveInsideSync(root, path.join(dir, path.basename(file)));
  let fd: number;
  try {
    fd = openSync(real, APPEND, 0o644);
  } catch (err) {
    throw refusedLink(err, real);
  }
  try {
    checkOpened(fd, realRoot, real, false);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Appends `text` to `file` in one write, synchronously (a launch line before a child starts). */
export function appendLineUnder(root: string, file: string, text: string): void {
  const fd = openAppendUnderSync(root, file);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** The folder a path's last name is in, held open (checked from the root), and that name; the root itself is refused. */
async function parentOf(root: string, target: string, create: boolean): Promise<{ dir: DirHandle; name: string } | null> {
  const inside = await resolveInside(root, target);
  if (inside.parts.length === 0) throw new ContainmentError(inside.real, 'is the root itself, which a run never renames or deletes');
  if (!create && inside.existing < inside.parts.length - 1) return null; // its folder is not there: nothing to act on
  const dir = await openDirUnder(root, path.dirname(inside.real), { create });
  return { dir, name: path.basename(inside.real) };
}

/**
 * Renames `from` to `to`, both under `root` (`to`'s folder made); neither may be or pass through a link. Both folders
 * are opened (O_DIRECTORY|O_NOFOLLOW, checked inside the root) and the rename goes through their descriptors
 * (dirHandle.ts), so a folder of either path swapped for a link after the check changes nothing outside (issue 42).
 */
export async function renameUnder(root: string, from: string, to: string): Promise<void> {
  await resolveInside(root, to); // a link at `to` or above it is refused before anything moves
  const src = await parentOf(root, from, false);
  if (!src) throw Object.assign(new Error(`ENOENT: no such file or directory, rename '${from}'`), { code: 'ENOENT' });
  try {
    const dest = await parentOf(root, to, true);
    try {
      await src.dir.rename(src.name, dest!.name, dest!.dir);
    } finally {
      await dest!.dir.close();
    }
  } finally {
    await src.dir.close();
  }
}

/**
 * Deletes `target` under `root` (a folder with `recursive`); nothing there is not an error. No link on its path is
 * followed: its folder is opened and checked, and the delete goes through that descriptor (a folder deleted
 * recursively one open handle a level, a link in it unlinked, never followed: dirHandle.ts's removeTree).
 */
export async function removeUnder(root: string, target: string, opts: { recursive?: boolean } = {}): Promise<void> {
  const inside = await resolveInside(root, target);
  if (inside.parts.length === 0) throw new ContainmentError(inside.real, 'is the root itself, which a run never deletes');
  if (!inside.leaf) return;
  const parent = await parentOf(root, target, false);
  if (!parent) return;
  try {
    const st = await parent.dir.lstat(parent.name);
    if (!st) return;
    if (st.isSymbolicLink()) throw new ContainmentError(parent.dir.pathOf(parent.name), 'is a symbolic link');
    if (!st.isDirectory()) await parent.dir.remove(parent.name);
    else if (opts.recursive) await parent.dir.removeTree(parent.name);
    else await fs.rm(parent.dir.at(parent.name)); // a folder without `recursive`: the OS's error, as before
  } finally {
    await parent.dir.close();
  }
}

/**
 * Whether `file` under `root` exists, decided without following a link: a link anywhere below the root (the file
 * itself included) is refused with its path. For a run's own state read back (is a stage done?): a planted link
 * would make the run trust, or skip on, a file outside.
 */
export async function existsUnder(root: string, file: string): Promise<boolean> {
  return (await resolveInside(root, file)).leaf !== null;
}

/**
 * `file` under `root` read whole as text, or null when it is missing: a link below the root is refused with its path,
 * the file is opened O_NOFOLLOW and its descriptor's real path checked inside the root. A run's own state read back.
 */
export async function readFileUnder(root: string, file: string): Promise<string | null> {
  const inside = await resolveInside(root, file);
  if (!inside.leaf) return null;
  const fh = await fs.open(inside.real, C.O_RDONLY | NOFOLLOW).catch((err: unknown) => Promise.reject(refusedLink(err, inside.real)));
  try {
    checkOpened(fh.fd, inside.realRoot, inside.real, true);
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

/** Deletes an empty folder under `root`; ENOTEMPTY when it is not empty, nothing when it is gone. */
export async function removeEmptyDirUnder(root: string, dir: string): Promise<void> {
  const inside = await resolveInside(root, dir);
  if (inside.leaf) await fs.rmdir(inside.real);
}

export { RelativeTargetError, resolveInside, resolveInsideSync, realRootOf } from './resolve';
export { mkdirUnder, mkdirUnderSync } from './mkdirs';
export { ContainmentError } from './containmentError';
