// Folders made under a root (issue 33), one component at a time from the root: a folder made meanwhile as a link is
// refused with its path, and on Linux each is made through the open folder above it. Shared by rootFs.ts and
// dirHandle.ts (which rootFs.ts builds its renames and deletes on).
import { closeSync, constants as C, existsSync, lstatSync, mkdirSync, openSync, promises as fs, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { ContainmentError } from './containmentError';
import { RelativeTargetError, resolveInside, resolveInsideSync, type InsidePath } from './resolve';

const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const OPEN_DIR = C.O_RDONLY | (C.O_DIRECTORY ?? 0) | NOFOLLOW;
/** Folders made through the open folder above them (Linux); elsewhere by path, each checked after. */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

function existsAlready(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EEXIST';
}

function isInside(realRoot: string, p: string): boolean {
  return p === realRoot || p.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

/** Opens a folder without following a link at its last name; `shown` names it in a refusal. */
function openDir(opener: string, shown: string): number {
  try {
    return openSync(opener, OPEN_DIR);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ContainmentError(shown, 'is a symbolic link');
    if (code === 'ENOTDIR') throw new ContainmentError(shown, 'is not a folder');
    throw err;
  }
}

/**
 * The folders of `inside` that do not exist yet, made one by one. On Linux the deepest existing one is opened
 * (O_DIRECTORY|O_NOFOLLOW, its real path checked inside the root) and each is made and opened through the one above
 * it (/proc/self/fd/<fd>/<name>), so a folder of the path swapped for a link meanwhile changes nothing outside
 * (issue 42); elsewhere each is made by path and one made meanwhile as a link is refused.
 */
function makeMissing(inside: InsidePath): void {
  if (inside.existing === inside.parts.length) return;
  if (!PROC_FD) {
    for (let i = inside.existing; i < inside.parts.length; i++) {
      const d = path.join(inside.realRoot, ...inside.parts.slice(0, i + 1));
      try {
        mkdirSync(d);
      } catch (err) {
        if (!existsAlready(err)) throw err;
      }
      if (lstatSync(d).isSymbolicLink()) throw new ContainmentError(d, 'is a symbolic link');
    }
    return;
  }
  let here = path.join(inside.realRoot, ...inside.parts.slice(0, inside.existing));
  let fd = openDir(here, here);
  try {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    if (!isInside(inside.realRoot, real))
      throw new ContainmentError(here, `was opened outside the root (at ${real}): a folder of its path was swapped for a link`);
    for (const name of inside.parts.slice(inside.existing)) {
      const at = `/proc/self/fd/${fd}/${name}`;
      here = path.join(here, name);
      try {
        mkdirSync(at);
      } catch (err) {
        if (!existsAlready(err)) throw err;
      }
      const next = openDir(at, here);
      closeSync(fd);
      fd = next;
    }
  } finally {
    closeSync(fd);
  }
}

/** Makes `dir` and the folders above it up to `root` (the root too); returns its real path. */
export async function mkdirUnder(root: string, dir: string): Promise<string> {
  if (!path.isAbsolute(dir)) throw new RelativeTargetError(dir); // before the root is made
  await fs.mkdir(path.resolve(root), { recursive: true }); // the root itself is the user's: made as named
  const inside = await resolveInside(root, dir);
  makeMissing(inside);
  if (inside.leaf && !inside.leaf.isDirectory()) throw new ContainmentError(inside.real, 'is not a folder');
  return inside.real;
}

export function mkdirUnderSync(root: string, dir: string): string {
  if (!path.isAbsolute(dir)) throw new RelativeTargetError(dir); // before the root is made
  mkdirSync(path.resolve(root), { recursive: true });
  const inside = resolveInsideSync(root, dir);
  makeMissing(inside);
  if (inside.leaf && !inside.leaf.isDirectory()) throw new ContainmentError(inside.real, 'is not a folder');
  return inside.real;
}
