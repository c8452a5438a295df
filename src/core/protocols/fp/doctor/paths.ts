// Can vLLM read what the run gives it? The runner passes the frame store's real path as
// --allowed-local-media-path and in every file:// URL (vLLM 0.11 resolves the file's path but takes
// the allowed path literally: vllm/multimodal/utils.py), so a package reached through a symlink works,
// but only where the real path is visible to the servers (a container mounting the link sees no files).
import { constants as fsc, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from '../../../doctor/schema';
import { PackageLayout } from '../package/layout';

/** The path itself if it exists, else its nearest existing ancestor. */
async function nearestExisting(p: string): Promise<string> {
  let d = path.resolve(p);
  for (;;) {
    try {
      await fs.stat(d);
      return d;
    } catch {
      const parent = path.dirname(d);
      if (parent === d) return d;
      d = parent;
    }
  }
}

/** Ancestors of a real path that other users cannot enter (no o+x). */
async function closedToOthers(real: string): Promise<string[]> {
  const closed: string[] = [];
  for (let d = real; ; d = path.dirname(d)) {
    const st = await fs.stat(d).catch(() => null);
    if (st && (st.mode & 0o001) === 0) closed.push(d);
    if (path.dirname(d) === d) break;
  }
  return closed;
}

export async function checkPaths(packageDir: string): Promise<DoctorLine[]> {
  const layout = new PackageLayout(packageDir);
  const lines: DoctorLine[] = [];
  const given = path.resolve(packageDir);
  const realPkg = await fs.realpath(given).catch(() => null);
  if (realPkg !== null && realPkg !== given) {
    lines.push({
      id: 'package_path',
      title: 'package path',
      status: 'warn',
      detail: `${given} is reached through a symlink; the servers are given the real path ${realPkg} (for --allowed-local-media-path and every file:// URL)`,
      action: `make sure the vLLM servers see ${realPkg} itself (in a container, mount the real path, not the link)`,
    });
  }

  const base = { id: 'frame_store_path', title: 'frame store path' };
  const store = layout.frameStoreDir;
  const existing = await nearestExisting(store);
  const real = await fs.realpath(existing).catch(() => existing);
  const target = existing === path.resolve(store) ? real : path.join(real, path.relative(existing, path.resolve(store)));
  const st = await fs.stat(existing).catch(() => null);
  if (!st?.isDirectory()) {
    lines.push({
      ...base,
      status: 'fail',
      detail: `${existing} is not a directory (the frame store ${store} cannot be made there)`,
      action: 'remove or move what is in the way',
    });
    return lines;
  }
  try {
    await fs.access(existing, fsc.R_OK | fsc.W_OK | fsc.X_OK);
  } catch {
    const what = existing === path.resolve(store) ? `the frame store ${real}` : `${real}, where the frame store ${target} will be made,`;
    lines.push({
      ...base,
      status: 'fail',
      detail: `${what} is not readable and writable by this user`,
      action: `fix its permissions (e.g. chmod u+rwx ${real}) or its owner`,
    });
    return lines;
  }
  const closed = await closedToOthers(real);
  const note = closed.length
    ? `; other users cannot enter ${closed[0]} (fine for servers this run launches; servers of another user, given with --endpoints, cannot read the frames)`
    : '';
  lines.push({
    ...base,
    status: 'ok',
    detail:
      `${existing === path.resolve(store) ? 'exists' : 'will be made'} at ${target}, readable and writable` +
      `${target !== path.resolve(store) ? ` (given as ${path.resolve(store)})` : ''}${note}`,
    action: null,
  });
  return lines;
}
