// Stored-video metadata: data/store/normalized/<hash>/meta.json, validated with videoMetaSchema.
// An item's video is one of: ok, no_video (no <hash>/ folder, meta.json or video.mp4: SPEC §1)
// or bad_meta (meta.json present but invalid, with the zod message).
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { videoMetaSchema, type VideoMeta } from './schemas';
import { isPlainName } from '../../../package/names';
import { describeZodError } from '../../../package/jsonl';
import type { PackageLayout } from './layout';
import { describeJsonError, parseBoundedJson } from '../../../io/boundedJson';

export type MetaLookup =
  { kind: 'ok'; hash: string; meta: VideoMeta } | { kind: 'no_video'; hash: string; message: string } | { kind: 'bad_meta'; hash: string; message: string };

// The callback API, promisified: fs.promises.readFile is 3-4× slower for ~20k small files (bench/plan.ts).
const readFile = promisify(fs.readFile);
const access = promisify(fs.access);

/** What the file system said: the meta.json text or the read error, and the presence of the rest. */
interface Probe {
  text: string | null;
  error: NodeJS.ErrnoException | null;
  dirExists: boolean;
  mp4Exists: boolean;
}

function classify(layout: PackageLayout, hash: string, probe: Probe): MetaLookup {
  const metaFile = layout.metaFile(hash);
  if (probe.text === null) {
    const code = probe.error?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { kind: 'no_video', hash, message: probe.dirExists ? `${metaFile} is missing` : `${layout.videoDir(hash)} is missing` };
    }
    return { kind: 'bad_meta', hash, message: `${metaFile}: cannot read (${probe.error?.message})` };
  }
  if (!probe.mp4Exists) return { kind: 'no_video', hash, message: `${layout.videoFile(hash)} is missing` };
  let json: unknown;
  try {
    json = parseBoundedJson(probe.text);
  } catch (err) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: ${describeJsonError(err)}` };
  }
  const parsed = videoMetaSchema.safeParse(json);
  if (!parsed.success) return { kind: 'bad_meta', hash, message: `${metaFile}: ${describeZodError(parsed.error)}` };
  if (parsed.data.n_frames === 0) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: the video has no frames (n_frames 0)` };
  }
  if (parsed.data.hash !== hash) {
    return { kind: 'bad_meta', hash, message: `${metaFile}: hash field '${parsed.data.hash}' does not match its folder '${hash}'` };
  }
  return { kind: 'ok', hash, meta: parsed.data };
}

function unsafe(hash: string): MetaLookup {
  return { kind: 'no_video', hash, message: `video hash '${hash}' is not a plain name; rejected` };
}

/** Reads and validates one video's meta.json, uncached. Never throws for data problems. */
export async function readVideoMetaUncached(layout: PackageLayout, hash: string): Promise<MetaLookup> {
  if (!isPlainName(hash)) return unsafe(hash);
  const probe: Probe = { text: null, error: null, dirExists: true, mp4Exists: false };
  try {
    probe.text = await readFile(layout.metaFile(hash), 'utf8');
    probe.mp4Exists = await access(layout.videoFile(hash)).then(
      () => true,
      () => false,
    );
  } catch (err) {
    probe.error = err as NodeJS.ErrnoException;
    probe.dirExists = await access(layout.videoDir(hash)).then(
      () => true,
      () => false,
    );
  }
  return classify(layout, hash, probe);
}

/**
 * The same, synchronously: for reading thousands of metas in a row (the work plan) this costs less
 * than half the CPU of the async path (no thread-pool hops); callers yield between batches.
 */
export function readVideoMetaSync(layout: PackageLayout, hash: string): MetaLookup {
  if (!isPlainName(hash)) return unsafe(hash);
  const probe: Probe = { text: null, error: null, dirExists: true, mp4Exists: false };
  try {
    probe.text = fs.readFileSync(layout.metaFile(hash), 'utf8');
    probe.mp4Exists = fs.existsSync(layout.videoFile(hash));
  } catch (err) {
    probe.error = err as NodeJS.ErrnoException;
    probe.dirExists = fs.existsSync(layout.videoDir(hash));
  }
  return classify(layout, hash, probe);
}

/**
 * Cached meta reader. The cache is bounded (least recently used out) because a full package has
 * ~19,600 videos with up to 1024 timestamps each; concurrent reads of one hash share one read.
 */
export class VideoMetaReader {
  private readonly cache = new Map<string, Promise<MetaLookup>>();
  constructor(
    readonly layout: PackageLayout,
    readonly capacity = 512,
  ) {}

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
