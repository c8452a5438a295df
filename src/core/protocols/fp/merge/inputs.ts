// What makes two packages "the same package" for a merge: the files a run reads to decide what to
// send — the items of every benchmark, the manifest (benchmark, video_id → hash), the scope summary
// and the videos manifest (the sha256 of each video shard, so the videos themselves). A copy made
// for a shard host has these byte for byte; a different package, or the same one edited, does not.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PackageLayout } from '../package/layout';

export interface InputFile {
  /** Relative to the package root, '/'-separated. */
  path: string;
  /** sha256 of the bytes, null when the file is absent. */
  sha256: string | null;
}

export interface InputsFingerprint {
  files: InputFile[];
  /** sha256 over the list (path and hash of each file). */
  digest: string;
}

async function sha256(file: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export async function inputsFingerprint(layout: PackageLayout): Promise<InputsFingerprint> {
  const rel = (p: string) => path.relative(layout.root, p).split(path.sep).join('/');
  const paths = [layout.scopeSummary, layout.manifest, layout.videosManifest];
  const samples = await fs.readdir(layout.samplesDir).catch(() => [] as string[]);
  for (const n of samples.filter((n) => n.endsWith('.jsonl')).sort()) paths.push(path.join(layout.samplesDir, n));
  const files: InputFile[] = [];
  for (const p of paths) files.push({ path: rel(p), sha256: await sha256(p) });
  const digest = createHash('sha256')
    .update(files.map((f) => `${f.path} ${f.sha256 ?? '-'}`).join('\n'))
    .digest('hex');
  return { files, digest };
}

/** The input files that differ between two fingerprints ('' when none), for the refusal message. */
export function describeInputDifference(a: InputsFingerprint, b: InputsFingerprint): string {
  const byPath = new Map(b.files.map((f) => [f.path, f.sha256]));
  const out: string[] = [];
  for (const f of a.files) {
    if (!byPath.has(f.path)) out.push(`${f.path} only in the first`);
    else if (byPath.get(f.path) !== f.sha256)
      out.push(
        `${f.path} ${f.sha256 === null ? 'absent' : f.sha256.slice(0, 12)} vs ${byPath.get(f.path) === null ? 'absent' : byPath.get(f.path)!.slice(0, 12)}`,
      );
    byPath.delete(f.path);
  }
  for (const p of byPath.keys()) out.push(`${p} only in the second`);
  return out.join('; ');
}
