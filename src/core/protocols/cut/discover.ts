// Which source videos an input root holds (SPEC-AVTIME-DATA §2): files directly in it (not recursive) with one of
// the six extensions in any case. A video's stem names its output directory, so two files with one stem are refused
// before any work (exit 2, both named), as is a stem that cannot be a directory name of ours.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../errors';
import { isPlainName } from '../../package/names';
import { mapBounded } from '../../runner/mapBounded';
import { FILE_CALLS_AT_ONCE } from '../../runner/stateRead';

export const VIDEO_EXTENSIONS = ['.mp4', '.m4v', '.mov', '.mkv', '.avi', '.webm'] as const;

export interface SourceVideo {
  stem: string;
  /** The file's name in the input root. */
  name: string;
  /** Absolute. */
  file: string;
}

/** The stem and whether a name is a source video (pure). */
export function sourceStem(name: string): string | null {
  const ext = path.extname(name);
  return (VIDEO_EXTENSIONS as readonly string[]).includes(ext.toLowerCase()) ? name.slice(0, -ext.length) : null;
}

/** The sources by stem (sorted), or an InputError naming every shared stem and every unusable one. Pure. */
export function sourcesFrom(inputRoot: string, names: readonly string[]): SourceVideo[] {
  const byStem = new Map<string, string[]>();
  const bad: string[] = [];
  for (const name of names) {
    const stem = sourceStem(name);
    if (stem === null) continue;
    // Our own directories under the output root start with '.'; a stem must be a plain directory name besides them.
    if (!isPlainName(stem) || stem.startsWith('.')) bad.push(`${name} (its stem '${stem}' cannot name an output directory)`);
    byStem.set(stem, [...(byStem.get(stem) ?? []), name]);
  }
  const shared = [...byStem].filter(([, files]) => files.length > 1);
  const problems = [
    ...shared.map(([stem, files]) => `${files.sort().join(' and ')} share the stem '${stem}' (one output directory): rename or move one`),
    ...bad,
  ];
  if (problems.length) throw new InputError(`${inputRoot}: ${problems.join('; ')}`);
  return [...byStem]
    .map(([stem, [name]]) => ({ stem, name, file: path.join(inputRoot, name) }))
    .sort((a, b) => (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0));
}

/** The input root's source videos: regular files (a link to one counts) directly in it. */
export async function discoverSources(inputRoot: string): Promise<SourceVideo[]> {
  const root = path.resolve(inputRoot);
  const entries = await fs.readdir(root, { withFileTypes: true }).catch((err: Error) => {
    throw new InputError(`--input-root ${root}: ${err.message}`);
  });
  const candidates = entries.filter((e) => sourceStem(e.name) !== null && (e.isFile() || e.isSymbolicLink()));
  // A regular file is one by its directory entry; only a link is followed (stat) to see that it reaches one.
  const files = await mapBounded(candidates, FILE_CALLS_AT_ONCE, async (e) =>
    e.isFile() || (await fs.stat(path.join(root, e.name)).catch(() => null))?.isFile() ? e.name : null,
  );
  return sourcesFrom(
    root,
    files.filter((n): n is string => n !== null),
  );
}
