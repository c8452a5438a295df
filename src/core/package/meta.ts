// Stored-video metadata: data/store/normalized/<hash>/meta.json, validated with videoMetaSchema.
// An item's video is one of: ok, no_video (no <hash>/ folder, meta.json or video.mp4: SPEC §1)
// or bad_meta (meta.json present but invalid, with the zod message).
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { videoMetaSchema, type VideoMeta } from './schemas';
import { isPlainName } from './names';
import { describeZodError } from './jsonl';
import type { PackageLayout } from './layout';

export type MetaLookup =
  | { kind: 'ok'; hash: string; meta: VideoMeta }
  | { kind: 'no_video'; hash: string; message: string }
  | { kind: 'bad_meta'; hash: string; message: string };

// The callback API, promisified: fs.promises.readFile is 3-4× slower for ~20k small files (bench/plan.ts).
const readFile = promisify(fs.readFile);
const access = promisify(fs.access);

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Reads and validates one video's meta.json, uncached. Never throws for data problems. */
export async function readVideoMetaUncached(layout: PackageLayout, hash: string): Promise<MetaLookup> {
  if (!isPlainName(hash)) {
    return { kind: 'no_video', hash, message: `video hash '${hash}' is not a plain name; rejected` };
  }
  const metaFile = layout.metaFile(hash);
  let text: string;
  try {
    text = await readFile(metaFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      const dirThere = await exists(layout.videoDir(hash));
      return { kind: 'no_video', hash, message: dirThere ? `${metaFile} is missing` : `${layout.videoDir(hash)} is missing` };
    }
    return { kind: 'bad_meta', hash, message: `${metaFile}: cannot read (${(err as Error).message})` };
  }
  if (!(await exists(layout.videoFile(hash)))) {
    return { kind: 'no_video', hash, message: `${layout.videoFile(hash)} is missing` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: not valid JSON (${(err as Error).message})` };
  }
  const parsed = videoMetaSchema.safeParse(json);
  if (!parsed.success) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: ${describeZodError(parsed.error)}` };
  }
  if (parsed.data.n_frames === 0) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: the video has no frames (n_frames 0)` };
  }
  if (parsed.data.hash !== hash) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: hash field '${parsed.data.hash}' does not match its folder '${hash}'` };
  }
  return { kind: 'ok', hash, meta: parsed.data };
}

/**
 * Cached meta reader. The cache is bounded (least recently used out) because a full package has
 * ~19,600 videos with up to 1024 timestamps each; concurrent reads of one hash share one read.
 */
export class VideoMetaReader {
  private readonly cache = new Map<string, Promise<MetaLookup>>();
  constructor(readonly layout: PackageLayout, readonly capacity = 512) {}

  read(hash: string): Promise<MetaLookup> {
    const hit = this.cache.get(hash);
    if (hit) {
      this.cache.delete(hash);
      this.cache.set(hash, hit);
      return hit;
    }
    const p = readVideoMetaUncached(this.layout, hash);
    this.cache.set(hash, p);
    if (this.cache.size > this.capacity) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
    return p;
  }
}

const readers = new WeakMap<PackageLayout, VideoMetaReader>();

/** readVideoMeta(layout, hash): cached per layout object (see VideoMetaReader). */
export function readVideoMeta(layout: PackageLayout, hash: string): Promise<MetaLookup> {
  let r = readers.get(layout);
  if (!r) {
    r = new VideoMetaReader(layout);
    readers.set(layout, r);
  }
  return r.read(hash);
}
