// Publishing a cut (SPEC-AVTIME-DATA §2): the validated staging directory replaces `<output-root>/<stem>/` by
// rename. A directory cannot be renamed over a non-empty one, so an earlier output is first renamed aside
// (`.staging/<stem>.previous`), the new one renamed in, then the old one removed. A crash between the two renames
// leaves the earlier output aside and no final directory: `restoreAside` (at every job's start) puts it back, so an
// earlier good output survives any failure of a re-cut.
import { promises as fs } from 'node:fs';
import type { CutLayout } from './layout';

const exists = (p: string) =>
  fs.lstat(p).then(
    () => true,
    () => false,
  );

/** An earlier output left aside by a publish that did not finish goes back in place (or away, if the new one is in). */
export async function restoreAside(layout: CutLayout, stem: string): Promise<void> {
  const aside = layout.asideDir(stem);
  if (!(await exists(aside))) return;
  if (await exists(layout.finalDir(stem))) await fs.rm(aside, { recursive: true, force: true });
  else await fs.rename(aside, layout.finalDir(stem));
}

/** Why the final path cannot be replaced by a cut (it is not a directory), or null. */
export async function finalPathProblem(layout: CutLayout, stem: string): Promise<string | null> {
  const st = await fs.lstat(layout.finalDir(stem)).catch(() => null);
  return st && !st.isDirectory() ? `${layout.finalDir(stem)} exists and is not a directory: move it away` : null;
}

/** `staged` (a validated video directory) becomes `<output-root>/<stem>/`; the video's staging folder is removed. */
export async function publishVideoDir(layout: CutLayout, stem: string, staged: string): Promise<void> {
  const final = layout.finalDir(stem);
  const aside = layout.asideDir(stem);
  await restoreAside(layout, stem);
  const hadEarlier = await exists(final);
  if (hadEarlier) await fs.rename(final, aside);
  await fs.rename(staged, final);
  if (hadEarlier) await fs.rm(aside, { recursive: true, force: true });
  await fs.rm(layout.stemStagingDir(stem), { recursive: true, force: true });
}
