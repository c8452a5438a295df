// Which tar entries a shard may hold (SPEC §1: `<hash>/video.mp4`, `<hash>/meta.json`). Used twice:
// while a shard is hashed (so a bad shard is refused before anything of it is extracted) and as
// the extraction filter (in case the file changed in between). Only files and folders pass: a shard
// has no use for a link (SPEC §1 and the seed's §3 name two files per video), and a link's target
// cannot be judged by its text (issue 33: `a/..`, where `a` is itself a link, cancels as text but
// climbs on disk). Absolute paths, `..`, devices and FIFOs are refused too.
const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'GNUDumpDir']);

function isAbsoluteLike(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[a-zA-Z]:/.test(p);
}

/** Why an entry is refused, or null when it may be extracted. */
export function entryProblem(entryPath: string, type: string, linkpath?: string | null): string | null {
  if (entryPath.includes('\0')) return 'path contains a NUL byte';
  if (isAbsoluteLike(entryPath)) return 'absolute path';
  const parts = entryPath.replace(/\\/g, '/').split('/');
  if (parts.includes('..')) return "path contains '..'";
  if (type === 'SymbolicLink' || type === 'Link') {
    const what = type === 'SymbolicLink' ? 'symbolic link' : 'hard link';
    return `${what}${linkpath ? ` -> ${linkpath}` : ''}: a shard holds only files and folders (SPEC §1)`;
  }
  if (!ALLOWED_TYPES.has(type)) return `entry type ${type} is not allowed in a video shard`;
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
