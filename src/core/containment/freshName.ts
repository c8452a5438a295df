// Names nobody can guess ahead, for what we make O_EXCL (a temp file) or mkdir (a private folder) in a folder others
// may write in: nothing can be planted at such a name beforehand (issue 42). One place makes them all: the temp beside
// a file (atomicFile.ts's writeStreamAtomic: `merge`'s log copies, the returns tarball), the frame store's temps and
// the private staging folders (dirHandle.ts's privateSub).
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';

/** `prefix` + 16 random hex digits (64 bits of the system's CSPRNG) + `suffix`: one name in a folder, never a path. */
export function unpredictableName(prefix: string, suffix = ''): string {
  const name = `${prefix}${randomBytes(8).toString('hex')}${suffix}`;
  if (/[\\/\0]/.test(name)) throw new RangeError(`'${name}' is not one name in a folder`);
  return name;
}

/** A hidden temp beside `file` (same folder, so a rename over `file` is atomic): `.<name>.tmp-<pid>-<16 hex>`. */
export function tempBeside(file: string): string {
  return path.join(path.dirname(file), unpredictableName(`.${path.basename(file)}.tmp-${process.pid}-`));
}
