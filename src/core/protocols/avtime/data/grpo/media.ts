// `--check-media` (SPEC-AVTIME-DATA §5): the video exists, and it resolves inside the media root, symlinks
// followed: a relative reference is taken under the root, and nothing (absolute or relative) may land outside it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../../../package/paths';

export async function mediaProblem(ref: string, realRoot: string): Promise<string | null> {
  const p = path.isAbsolute(ref) ? ref : path.join(realRoot, ref);
  if (!isInside(realRoot, path.resolve(p))) return `video '${ref}' resolves outside --media-root ${realRoot}; expected a file under it`;
  const real = await fs.realpath(p).catch(() => null);
  if (real === null) return `video '${ref}' does not exist (looked for ${p}); expected an existing file under --media-root`;
  if (!isInside(realRoot, real)) return `video '${ref}' resolves to ${real}, outside --media-root ${realRoot}; expected a file under it`;
  const st = await fs.stat(real);
  return st.isFile() ? null : `video '${ref}' is not a regular file; expected a video file`;
}
