// Remembered shard verifications: .fpsweep/verified_shards.json, keyed by shard file name with
// the size, mtimeMs and manifest sha256 it was verified at. A shard is hashed again only when one
// of those changed (94 GB of shards take long to hash). Extraction is remembered the same way, so
// a second `prepare` neither rehashes nor re-extracts, and a shard deleted after extraction
// (--delete-shards) is known to have been extracted.
import { writeFileAtomic } from '../../../runner/atomicFile';
import { z } from 'zod';
import { parseBoundedJson } from '../../../io/boundedJson';
import { readFileUnder } from '../../../containment/rootFs';
import type { PackageLayout } from '../package/layout';

type CacheLayout = Pick<PackageLayout, 'root' | 'verifiedCache'>;

export const verifiedShardSchema = z.object({
  file: z.string(),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  entries: z.number().int().nonnegative(),
  unpackedBytes: z.number().int().nonnegative(),
  verifiedAt: z.string(),
  extractedAt: z.string().nullable(),
  deletedAt: z.string().nullable(),
});
export type VerifiedShard = z.infer<typeof verifiedShardSchema>;

export const verifiedCacheSchema = z.object({
  version: z.literal(1),
  shards: z.record(z.string(), verifiedShardSchema),
});
export type VerifiedCache = z.infer<typeof verifiedCacheSchema>;

/** Reads the cache, never through a link; a missing or unreadable one is empty (it only saves time, never decides),
 * and a link there is replaced by the next save. */
export async function loadVerifiedCache(layout: CacheLayout): Promise<VerifiedCache> {
  try {
    const parsed = verifiedCacheSchema.safeParse(parseBoundedJson((await readFileUnder(layout.root, layout.verifiedCache)) ?? ''));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: start afresh
  }
  return { version: 1, shards: {} };
}

export async function saveVerifiedCache(layout: CacheLayout, cache: VerifiedCache): Promise<void> {
  await writeFileAtomic(layout.root, layout.verifiedCache, JSON.stringify(cache, null, 1) + '\n');
}

/** The cached verification if it still holds for this file's size, mtime and expected sha256. */
export function cachedVerification(cache: VerifiedCache, file: string, size: number, mtimeMs: number, sha256: string): VerifiedShard | null {
  const c = cache.shards[file];
  if (!c || c.deletedAt) return null;
  return c.size === size && c.mtimeMs === mtimeMs && c.sha256 === sha256 ? c : null;
}
