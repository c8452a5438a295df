// A package-local cache of what the plan needs from each meta.json (MetaSummary), so the plans of a
// dry run, the pilot, the full run and every resume after the first do not re-read and re-validate
// ~19,600 files. An entry is used only while meta.json has the same size, mtime, ctime and inode
// (ctime cannot be set by tar or touch, so a re-extracted or edited file always misses); video.mp4
// is checked on every lookup. Only valid metas are cached: no_video and bad_meta are re-checked.
// The file is ours (.fpsweep/plan-meta-cache.json): unreadable or stale versions are rebuilt.
// Only the runner writes it (buildWorkPlan metaCache: 'update'); dry runs only read it.
import { writeFileAtomic } from '../../../runner/atomicFile';
import * as fs from 'node:fs';
import { z } from 'zod';
import type { PackageLayout } from '../package/layout';
import { readVideoMetaSync, type MetaLookup } from '../package/meta';
import { isPlainName } from '../../../package/names';
import { summarizeMeta, type MetaSummary } from './sketch';
import { parseBoundedJson } from '../../../io/boundedJson';

/** Bump when what a valid meta.json is (videoMetaSchema, meta.ts checks) or MetaSummary changes. */
const CACHE_VERSION = 1;

type Entry = number[];
// [size, mtimeMs, ctimeMs, ino, width, height, too_short (0|1), nFrames, firstTs, lastTs]
const ENTRY_LENGTH = 10;
function isEntry(v: unknown): v is Entry {
  if (!Array.isArray(v) || v.length !== ENTRY_LENGTH) return false;
  for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  return true;
}
/** One pass over all entries (a zod schema per entry costs ~0.5 s for a full package). */
const fileSchema = z.object({
  version: z.number(),
  entries: z.custom<Record<string, Entry>>((e) => typeof e === 'object' && e !== null && !Array.isArray(e) && Object.values(e).every(isEntry), {
    message: 'entries must map hashes to arrays of 10 numbers',
  }),
});

export type VideoCheck =
  { kind: 'ok'; summary: MetaSummary; /** Set when this lookup read the file. */ lookup?: MetaLookup } | { kind: 'no_video' | 'bad_meta'; message: string };

export function metaCacheFile(layout: PackageLayout): string {
  return layout.metaCache;
}

export class MetaSummaryCache {
  private dirty = false;
  // A Map, not an object: a hash is data and could be '__proto__'.
  private constructor(
    private readonly layout: PackageLayout,
    private readonly entries: Map<string, Entry>,
  ) {}

  /** Loads the cache; a missing, unreadable or other-version file is an empty cache. */
  static load(layout: PackageLayout): MetaSummaryCache {
    try {
      const parsed = fileSchema.safeParse(parseBoundedJson(fs.readFileSync(metaCacheFile(layout), 'utf8')));
      if (parsed.success && parsed.data.version === CACHE_VERSION) {
        return new MetaSummaryCache(layout, new Map(Object.entries(parsed.data.entries)));
      }
    } catch {
      // absent or torn: rebuilt
    }
    return new MetaSummaryCache(layout, new Map());
  }

  static empty(layout: PackageLayout): MetaSummaryCache {
    return new MetaSummaryCache(layout, new Map());
  }

  /** Synchronous, like readVideoMetaSync (the plan reads thousands in a row, yielding in between). */
  check(hash: string): VideoCheck {
    if (!isPlainName(hash)) return toCheck(readVideoMetaSync(this.layout, hash));
    const metaFile = this.layout.metaFile(hash);
    // stat before reading: a file changed in between misses next time instead of being trusted
    const st = fs.statSync(metaFile, { throwIfNoEntry: false });
    if (st) {
      const v = this.entries.get(hash);
      if (v && v[0] === st.size && v[1] === st.mtimeMs && v[2] === st.ctimeMs && v[3] === st.ino) {
        if (!fs.existsSync(this.layout.videoFile(hash))) {
          return { kind: 'no_video', message: `${this.layout.videoFile(hash)} is missing` };
        }
        return { kind: 'ok', summary: { width: v[4], height: v[5], too_short: v[6] === 1, nFrames: v[7], firstTs: v[8], lastTs: v[9] } };
      }
    }
    const found = readVideoMetaSync(this.layout, hash);
    if (found.kind === 'ok' && st) {
      const s = summarizeMeta(found.meta);
      this.entries.set(hash, [st.size, st.mtimeMs, st.ctimeMs, st.ino, s.width, s.height, s.too_short ? 1 : 0, s.nFrames, s.firstTs, s.lastTs]);
      this.dirty = true;
    }
    return toCheck(found);
  }

  /** Writes the cache if it changed (atomically). False when it could not (read-only package). */
  async save(): Promise<boolean> {
    if (!this.dirty) return true;
    const file = metaCacheFile(this.layout);
    try {
      await writeFileAtomic(this.layout.root, file, JSON.stringify({ version: CACHE_VERSION, entries: Object.fromEntries(this.entries) }));
      this.dirty = false;
      return true;
    } catch {
      return false;
    }
  }
}

function toCheck(found: MetaLookup): VideoCheck {
  if (found.kind !== 'ok') return { kind: found.kind, message: found.message };
  return { kind: 'ok', summary: summarizeMeta(found.meta), lookup: found };
}
