// Which video directories a videos root holds (SPEC-AVTIME-DATA §3, Jobs): its direct child directories with a
// segments.json are tracked, the others untracked; our own state directory is neither. Not recursive.
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
  return { tracked: sort(dirs.filter((_, i) => has[i])), untracked: sort(dirs.filter((_, i) => !has[i])) };
}
