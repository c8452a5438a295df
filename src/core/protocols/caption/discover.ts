// Which video directories a videos root holds (SPEC-AVTIME-DATA §3, Jobs): its direct child directories with a
// segments.json are tracked, the others untracked; our own state directory is neither. Not recursive. A child that
// is a link is refused, with its reason (issue 33): captions are written into a video's directory, and a link would
// carry them wherever it points; it is listed, not skipped silently.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mapBounded } from '../../runner/mapBounded';
import { FILE_CALLS_AT_ONCE } from '../../runner/stateRead';
import { CAPTION_STATE_DIR, SEGMENTS_FILE } from './layout';

export interface VideoDirs {
  /** Names of the tracked video directories, sorted. */
  tracked: string[];
  /** Names of the other child directories, sorted. */
  untracked: string[];
  /** Children that look like video directories but are refused (a link), with why, sorted by name. */
  refused: RefusedDir[];
}

export interface RefusedDir {
  name: string;
  reason: string;
}

async function refusal(root: string, name: string): Promise<RefusedDir> {
  const target = await fs.readlink(path.join(root, name)).catch(() => '?');
  return { name, reason: `a symbolic link (-> ${target}): a video directory must be a folder of the root itself, never a link; replace it by the folder` };
}

export async function discoverVideoDirs(root: string): Promise<VideoDirs> {
  const entries = await fs.readdir(root, { withFileTypes: true });
  const dirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== CAPTION_STATE_DIR).map((e) => e.name);
  const has = await mapBounded(dirs, FILE_CALLS_AT_ONCE, (d) =>
    fs
      .stat(path.join(root, d, SEGMENTS_FILE))
      .then((s) => s.isFile())
      .catch(() => false),
  );
  const sort = (xs: string[]) => xs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const links = sort(entries.filter((e) => e.isSymbolicLink() && !e.name.startsWith('.')).map((e) => e.name));
  const refused = await mapBounded(links, FILE_CALLS_AT_ONCE, (name) => refusal(root, name));
  return { tracked: sort(dirs.filter((_, i) => has[i])), untracked: sort(dirs.filter((_, i) => !has[i])), refused };
}
