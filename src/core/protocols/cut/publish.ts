// Publishing a cut (SPEC-AVTIME-DATA §2): the validated staging directory replaces `<output-root>/<stem>/` by
// rename. A directory cannot be renamed over a non-empty one, so an earlier output is first renamed aside
// (`.staging/<stem>.previous`), the new one renamed in, then the old one removed. A crash between the two renames
// leaves the earlier output aside and no final directory: `restoreAside` (at every job's start) puts it back, so an
// earlier good output survives any failure of a re-cut. Every rename and delete goes through the containment module.
import { promises as fs } from 'node:fs';
import { ContainmentError, removeUnder, renameUnder } from '../../containment/rootFs';
import type { CutLayout } from './layout';

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

/** An earlier output left aside by a publish that did not finish goes back in place (or away, if the new one is in). */
export async function restoreAside(layout: CutLayout, stem: string): Promise<void> {
  const aside = layout.asideDir(stem);
  const st = await fs.lstat(aside).catch(() => null);
  if (!st) return;
  // Never ours: a link planted there is not put in place of the published folder (issue 42).
  if (st.isSymbolicLink()) throw new ContainmentError(aside, 'is a symbolic link');
  if (await exists(layout.finalDir(stem))) await removeUnder(layout.root, aside, { recursive: true });
  else await renameUnder(layout.root, aside, layout.finalDir(stem));
}

/** Why the final path cannot be replaced by a cut (it is not a directory), or null; a link there is refused. */
export async function finalPathProblem(layout: CutLayout, stem: string): Promise<string | null> {
  const st = await fs.lstat(layout.finalDir(stem)).catch(() => null);
  // A link where the published folder belongs ends the run (exit 2, the path named), as every link in the root.
  if (st?.isSymbolicLink()) throw new ContainmentError(layout.finalDir(stem), 'is a symbolic link');
  return st && !st.isDirectory() ? `${layout.finalDir(stem)} exists and is not a directory: move it away` : null;
}

/** `staged` (a validated video directory) becomes `<output-root>/<stem>/`; the video's staging folder is removed. */
export async function publishVideoDir(layout: CutLayout, stem: string, staged: string): Promise<void> {
  const final = layout.finalDir(stem);
  const aside = layout.asideDir(stem);
  await restoreAside(layout, stem);
  const hadEarlier = await exists(final);
  if (hadEarlier) await renameUnder(layout.root, final, aside);
  await renameUnder(layout.root, staged, final);
  if (hadEarlier) await removeUnder(layout.root, aside, { recursive: true });
  await removeUnder(layout.root, layout.stemStagingDir(stem), { recursive: true });
}
