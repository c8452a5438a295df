// Which tar entries a shard may hold (SPEC §1: `<hash>/video.mp4`, `<hash>/meta.json`). Used twice:
// while a shard is hashed (so a bad shard is refused before anything of it is extracted) and as
// the extraction filter (in case the file changed in between). Anything that could write outside
// data/store/normalized is refused: absolute paths, `..`, links whose target leaves the folder,
// and device/FIFO entries, which no video shard has a reason to hold.
import * as path from 'node:path';

const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'GNUDumpDir', 'SymbolicLink', 'Link']);

function isAbsoluteLike(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[a-zA-Z]:/.test(p);
}

function escapes(normalized: string): boolean {
  return normalized === '..' || normalized.startsWith('../') || normalized.split('/').includes('..');
}

/** Why an entry is refused, or null when it may be extracted. */
export function entryProblem(entryPath: string, type: string, linkpath?: string | null): string | null {
  if (entryPath.includes('\0')) return 'path contains a NUL byte';
  if (isAbsoluteLike(entryPath)) return 'absolute path';
  const parts = entryPath.replace(/\\/g, '/').split('/');
  if (parts.includes('..')) return "path contains '..'";
  if (!ALLOWED_TYPES.has(type)) return `entry type ${type} is not allowed in a video shard`;
  if (type === 'SymbolicLink' || type === 'Link') {
    const what = type === 'SymbolicLink' ? 'symbolic link' : 'hard link';
    const target = String(linkpath ?? '').replace(/\\/g, '/');
    if (target === '') return `${what} without a target`;
    if (isAbsoluteLike(target)) return `${what} to an absolute path (${target})`;
    // A symlink's target is relative to the link's own folder; a hard link's to the archive root.
    const resolved =
      type === 'SymbolicLink' ? path.posix.normalize(path.posix.join(path.posix.dirname(parts.join('/')), target)) : path.posix.normalize(target);
    if (escapes(resolved)) return `${what} leaves the folder (-> ${target})`;
  }
  return null;
}

/** A refused entry: the shard and the entry are both named in the message. */
export class RefusedEntryError extends Error {
  constructor(
    readonly shard: string,
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`${shard}: entry '${entry}' refused: ${reason}; nothing of this shard is extracted`);
    this.name = 'RefusedEntryError';
  }
}
