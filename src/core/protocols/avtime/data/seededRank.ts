// "Seeded rank" (SPEC-AVTIME-DATA "Common rules"): lowercase hex sha256(utf8(seed + ":" + id)), compared as strings.
import { createHash } from 'node:crypto';

export function seededRank(seed: string, id: string): string {
  return createHash('sha256').update(`${seed}:${id}`, 'utf8').digest('hex');
}

/** The items in ascending seeded rank of their id (ranks of distinct ids never tie). */
export function bySeededRank<T>(items: readonly T[], seed: string, idOf: (t: T) => string): T[] {
  return items
    .map((t) => ({ t, r: seededRank(seed, idOf(t)) }))
    .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
    .map((x) => x.t);
}
