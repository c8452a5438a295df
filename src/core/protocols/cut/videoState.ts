// A source's signature as it is on disk now, and a video's state file (read back read-only; written atomically).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../runner/atomicFile';
import { readTextIfExists } from '../../runner/stateRead';
import type { CutLayout } from './layout';
import { videoStateSchema, type SourceSignature, type VideoState } from './schemas';
import { parseBoundedJson } from '../../io/boundedJson';

export async function sourceSignature(file: string): Promise<SourceSignature | null> {
  const st = await fs.stat(file, { bigint: true }).catch(() => null);
  return st ? { size: Number(st.size), mtimeNs: st.mtimeNs.toString() } : null;
}

export const sameSignature = (a: SourceSignature, b: SourceSignature) => a.size === b.size && a.mtimeNs === b.mtimeNs;

/** The video's state, or null when none (a torn or foreign file reads as no state, so it is cut again). A file that
 * exists but cannot be read (EMFILE, EACCES) is an error, never "none": that would cut a finished video again. */
export async function readVideoState(layout: CutLayout, stem: string): Promise<VideoState | null> {
  const text = await readTextIfExists(layout.stateFile(stem));
  if (text === null) return null;
  try {
    const r = videoStateSchema.safeParse(parseBoundedJson(text));
    return r.success && r.data.stem === stem ? r.data : null;
  } catch {
    return null;
  }
}

export async function writeVideoState(layout: CutLayout, state: VideoState): Promise<void> {
  const file = layout.stateFile(state.stem);
  await writeFileAtomic(layout.root, file, JSON.stringify(videoStateSchema.parse(state), null, 1) + '\n');
}

/** The stems that have a state file, from one listing of the states folder (none yet: empty). */
export async function listStateStems(layout: CutLayout): Promise<Set<string>> {
  const names = await fs.readdir(path.dirname(layout.stateFile('x'))).catch(() => [] as string[]);
  return new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)));
}
