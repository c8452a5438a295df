// `--shard K/N` (1-based, as Playwright and Jest): a run on one host of N takes the items whose
// video falls in part K of a partition by video hash, so a video's frames and prefix cache never
// span hosts. The partition is a pure function of the hash (stable across hosts and runs): the
// leading 48 bits of sha256(hash), read as a fraction of 2^48, times N. Hashing the hash first
// makes the split uniform whatever alphabet the package's hashes use.
// Items without a video (no manifest row) go to one shard by their own key (benchmark, item_id), so
// their no_video failure lines are written once; v_blind units belong to their item, hence to its
// video's shard.
import { createHash } from 'node:crypto';
import type { LoadedPackage } from '../package/load';
import { hashOf, loadPackage } from '../package/load';
import { readResultsCsv } from '../package/resultsCsv';
import type { Item } from '../package/schemas';

import type { ShardSpec } from '../../../cli/shardSpec';

export { formatShard, parseShard, shardSpecSchema, type ShardSpec } from '../../../cli/shardSpec';

const SPAN = 2 ** 48;

/** The shard (1..n) of a key: part of [0, 1) that the leading 48 bits of sha256(key) fall in. */
export function shardOf(key: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`shard count must be a whole number ≥ 1, got ${n}`);
  const x = createHash('sha256').update(key, 'utf8').digest().readUIntBE(0, 6);
  return Math.floor((x * n) / SPAN) + 1;
}

/** The key an item is sharded by: its video's hash, or (no manifest row) its own (benchmark, item_id). */
export function itemShardKey(videoHash: string | undefined, benchmark: string, itemId: string): string {
  return videoHash !== undefined ? `video\u0000${videoHash}` : `item\u0000${benchmark}\u0000${itemId}`;
}

/**
 * The package as shard `spec` sees it: the same inputs with only the shard's items. Every count built
 * from it (plan, dry run, status cells) is the shard's own. No spec: the package unchanged.
 */
export function applyShard(pkg: LoadedPackage, spec: ShardSpec | undefined | null): LoadedPackage {
  if (!spec) return pkg;
  const items = new Map<string, Item[]>();
  for (const [bench, list] of pkg.items) {
    items.set(
      bench,
      list.filter((it) => shardOf(itemShardKey(hashOf(pkg, bench, it.video_id), bench, it.item_id), spec.count) === spec.index),
    );
  }
  return { ...pkg, items };
}

/**
 * Rows of the results CSV per benchmark × condition that belong to shard `spec` (a shard's copy
 * holds the origin's rows of every shard's items; its status counts only its own).
 */
export async function shardDoneCounts(root: string, spec: ShardSpec): Promise<(benchmark: string, condition: string) => number> {
  const pkg = applyShard(await loadPackage(root), spec);
  const mine = new Set<string>();
  for (const [b, list] of pkg.items) for (const it of list) mine.add(`${b}\u0000${it.item_id}`);
  const csv = await readResultsCsv(pkg.layout.resultsCsv, { keepRows: true });
  const counts = new Map<string, number>();
  if (csv.header) {
    const [bi, ii, ci] = ['benchmark', 'item_id', 'condition'].map((c) => csv.header!.indexOf(c));
    const seen = new Set<string>();
    for (const r of csv.rows) {
      const k = `${r[bi]}\u0000${r[ii]}`;
      if (!mine.has(k) || seen.has(`${k}\u0000${r[ci]}`)) continue;
      seen.add(`${k}\u0000${r[ci]}`);
      counts.set(`${r[bi]}\u0000${r[ci]}`, (counts.get(`${r[bi]}\u0000${r[ci]}`) ?? 0) + 1);
    }
  }
  return (b, c) => counts.get(`${b}\u0000${c}`) ?? 0;
}
