// After extraction: count the stored videos (folders holding video.mp4 and meta.json) against the
// manifest's n_videos, and list the manifest's videos that have no complete folder (seed §3:
// `ls data/store/normalized | wc -l`, expecting n_videos; §7: some items have no video).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { LineProblem } from '../../../errors';
import { readJsonl } from '../../../package/jsonl';
import type { PackageLayout } from '../package/layout';
import { manifestRowSchema } from '../package/schemas';

export interface MissingVideo {
  hash: string;
  /** (benchmark, video_id) pairs of manifest_subset.jsonl that point at it. */
  refs: Array<{ benchmark: string; video_id: string }>;
}

export interface VideoCount {
  /** Complete folders: <hash>/video.mp4 and <hash>/meta.json both present. */
  videos: number;
  /** Folders with one of the two files missing. */
  incomplete: string[];
  /** Manifest videos without a complete folder. */
  missing: MissingVideo[];
  manifestVideos: number;
  problems: LineProblem[];
}

// lstat: a link in the store is not a video (SPEC §1: a shard holds files and folders only).
async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.lstat(p)).isFile();
  } catch {
    return false;
  }
}

export async function countVideos(layout: PackageLayout): Promise<VideoCount> {
  let names: string[] = [];
  try {
    names = (await fs.readdir(layout.storeDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const complete = new Set<string>();
  const incomplete: string[] = [];
  // Bounded parallel stats: ~20k folders on a network disk are slow one by one.
  for (let i = 0; i < names.length; i += 64) {
    const batch = names.slice(i, i + 64);
    const ok = await Promise.all(
      batch.map(async (n) => {
        const dir = path.join(layout.storeDir, n);
        const [v, m] = await Promise.all([isFile(path.join(dir, 'video.mp4')), isFile(path.join(dir, 'meta.json'))]);
        return v && m;
      }),
    );
    batch.forEach((n, j) => (ok[j] ? complete.add(n) : incomplete.push(n)));
  }
  const problems: LineProblem[] = [];
  const byHash = new Map<string, MissingVideo>();
  try {
    const res = await readJsonl(layout.manifest, manifestRowSchema, { expected: 'a manifest line {"benchmark", "video_id", "hash"}' });
    problems.push(...res.problems);
    for (const { value } of res.records) {
      let e = byHash.get(value.hash);
      if (!e) byHash.set(value.hash, (e = { hash: value.hash, refs: [] }));
      e.refs.push({ benchmark: value.benchmark, video_id: value.video_id });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    problems.push({ file: layout.manifest, line: 0, message: 'missing: cannot tell which videos are expected' });
  }
  const missing = [...byHash.values()].filter((m) => !complete.has(m.hash)).sort((a, b) => (a.hash < b.hash ? -1 : 1));
  return { videos: complete.size, incomplete: incomplete.sort(), missing, manifestVideos: byHash.size, problems };
}
