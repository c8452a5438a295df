// A path under a root resolved on disk, one component at a time: each existing component is lstat'ed, a link is
// refused (never followed), `..` goes back one real folder and never above the root. Text normalisation is not
// used: `a/..` where `a` is a link would cancel as text but climb wherever `a` points; here `a` is seen and refused.
// The walk is a generator over "lstat this path", so the async and the sync callers share it.
import { lstatSync, promises as fs, realpathSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { ContainmentError } from './containmentError';

/** A path checked inside a root: `real` under the root's real path; `existing` how many of its components exist. */
export interface InsidePath {
  realRoot: string;
  real: string;
  /** The components below the root, in order (no '.', no '..'). */
  parts: string[];
  /** How many of `parts` exist on disk (the rest are to be made). */
  existing: number;
  /** The last component's lstat, when it exists. */
  leaf: Stats | null;
}

/**
 * A relative target is a programming error, not the user's: the CLI resolves every path flag against the cwd once, at
 * the boundary (src/core/cli/options.ts), so one reaching here was joined wrongly somewhere. Read against the root it
 * doubled the user's folders (`--output-jsonl data/sft/train.jsonl` wrote data/sft/data/sft/train.jsonl, issue 41).
 */
export class RelativeTargetError extends Error {
  constructor(readonly target: string) {
    super(`containment: the target '${target}' is relative; pass an absolute path (a path flag is made absolute where it is parsed)`);
    this.name = 'RelativeTargetError';
  }
}

/** The components of `target` below `root` (raw text, `..` kept), or null when `target` is not under it as text. */
function relativeParts(root: string, realRoot: string, target: string): string[] | null {
  if (!path.isAbsolute(target)) throw new RelativeTargetError(target);
  for (const base of [path.resolve(root), realRoot]) {
    if (target === base) return [];
    const prefix = base.endsWith(path.sep) ? base : base + path.sep;
    if (target.startsWith(prefix)) return target.slice(prefix.length).split(/[\\/]+/);
  }
  return null;
}

type Walk = Generator<string, InsidePath, Stats | null>;

function* walk(root: string, realRoot: string, target: string): Walk {
  const raw = relativeParts(root, realRoot, target);
  if (raw === null) throw new ContainmentError(target, `not inside the root ${root}`);
  const parts: string[] = [];
  /** lstat of each of `parts` that exists; a missing one ends the list (nothing under it exists). */
  const stats: Stats[] = [];
  for (const p of raw) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (parts.length === 0) throw new ContainmentError(target, `leaves the root ${root}`);
      parts.pop();
      stats.length = Math.min(stats.length, parts.length);
      continue;
    }
    parts.push(p);
    if (stats.length !== parts.length - 1) continue; // under a missing folder: nothing to look at
    const here = path.join(realRoot, ...parts);
    const st = yield here;
    if (st === null) continue;
    if (st.isSymbolicLink()) throw new ContainmentError(here, 'is a symbolic link');
    stats.push(st);
  }
  const existing = stats.length;
  const leaf = existing === parts.length && existing > 0 ? stats[existing - 1] : null;
  // A file in the middle of the path is the OS's ENOTDIR when the path is used.
  return { realRoot, real: path.join(realRoot, ...parts), parts, existing, leaf };
}

function missing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The root's real path; a root not made yet is its nearest existing folder's real path plus the rest. */
export async function realRootOf(root: string): Promise<string> {
  const abs = path.resolve(root);
  try {
    return await fs.realpath(abs);
  } catch (err) {
    if (!missing(err) || path.dirname(abs) === abs) throw err;
    return path.join(await realRootOf(path.dirname(abs)), path.basename(abs));
  }
}

export function realRootOfSync(root: string): string {
  const abs = path.resolve(root);
  try {
    return realpathSync(abs);
  } catch (err) {
    if (!missing(err) || path.dirname(abs) === abs) throw err;
    return path.join(realRootOfSync(path.dirname(abs)), path.basename(abs));
  }
}

/** `target` (absolute: a relative one throws RelativeTargetError) checked on disk; a link below the root or a climb above it throws. */
export async function resolveInside(root: string, target: string): Promise<InsidePath> {
  const g = walk(root, await realRootOf(root), target);
  let step = g.next();
  while (!step.done) {
    const at = step.value;
    step = g.next(await fs.lstat(at).catch((err: unknown) => (missing(err) ? null : Promise.reject(err))));
  }
  return step.value;
}

export function resolveInsideSync(root: string, target: string): InsidePath {
  const g = walk(root, realRootOfSync(root), target);
  let step = g.next();
  while (!step.done) {
    let st: Stats | null;
    try {
      st = lstatSync(step.value);
    } catch (err) {
      if (!missing(err)) throw err;
      st = null;
    }
    step = g.next(st);
  }
  return step.value;
}
