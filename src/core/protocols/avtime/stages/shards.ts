// Which target inputs each shard answers (SPEC-AVTIME §3 [decided]): contiguous runs in input order, the
// first shards one longer when the count does not divide — with two groups, the first half rounded up
// on group 0 and the rest on group 1; one group → one shard.
export function splitShards<T>(items: readonly T[], groups: number): T[][] {
  if (!Number.isInteger(groups) || groups < 1) throw new Error(`splitShards: groups must be ≥ 1, got ${groups}`);
  const base = Math.floor(items.length / groups);
  const extra = items.length % groups;
  const out: T[][] = [];
  let at = 0;
  for (let k = 0; k < groups; k++) {
    const n = base + (k < extra ? 1 : 0);
    out.push(items.slice(at, at + n));
    at += n;
  }
  return out;
}
