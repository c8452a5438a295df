// Condition order for display and the ladder steps that cannot differ from their neighbour (extras of the
// findings): reused rows (SPEC §2.4: v_32_s448 copies v_32 for stored-480 videos), and frame ladders where a
// step sent as many frames as the step below it for an item (the video has no more frames, or the fps cap).
import { parseCondition, type Condition } from '../rules/conditions';
import { REUSE_RULES } from '../rules/rules';
import type { BenchmarkTable } from './table';
import type { LadderFlag } from './types';

function parsed(name: string): Condition | null {
  try {
    return parseCondition(name);
  } catch {
    return null;
  }
}

/** v_blind, then frame counts (fewer first; within one count, smaller short side first, storage last), then fps. */
export function conditionOrder(a: string, b: string): number {
  const rank = (c: Condition | null): [number, number, number] => {
    if (!c) return [3, 0, 0];
    if (c.kind === 'blind') return [0, 0, 0];
    if (c.kind === 'count') return [1, c.nFrames, c.shortSide ?? Infinity];
    return [2, c.shortSide, c.fps];
  };
  const ra = rank(parsed(a));
  const rb = rank(parsed(b));
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
  return a.localeCompare(b);
}

/** Adjacent steps of each frame ladder (same short side, frame count or fps rising): [lower, higher]. */
function frameLadderPairs(conditions: readonly string[]): [string, string][] {
  const groups = new Map<string, { name: string; x: number }[]>();
  for (const name of conditions) {
    const c = parsed(name);
    if (!c || c.kind === 'blind') continue;
    const key = c.kind === 'count' ? `count/${c.shortSide ?? 'storage'}` : `fps/${c.shortSide}`;
    const g = groups.get(key) ?? [];
    g.push({ name, x: c.kind === 'count' ? c.nFrames : c.fps });
    groups.set(key, g);
  }
  const pairs: [string, string][] = [];
  for (const g of groups.values()) {
    g.sort((p, q) => p.x - q.x);
    for (let i = 1; i < g.length; i++) pairs.push([g[i - 1].name, g[i].name]);
  }
  return pairs;
}

export function ladderFlags(t: BenchmarkTable): LadderFlag[] {
  const flags: LadderFlag[] = [];
  for (const rule of REUSE_RULES) {
    let n = 0;
    for (const row of t.rows.get(rule.condition)?.values() ?? []) if (row.status === 'reuse') n++;
    if (n > 0) {
      flags.push({
        condition: rule.condition,
        same_as: rule.from,
        kind: 'reused',
        items: n,
        message:
          `${rule.condition} copies ${rule.from} for ${n} item(s) (stored short side ${rule.storedShortSide}): ` +
          'those rows are not answers and leave its contrasts',
      });
    }
  }
  for (const [lower, higher] of frameLadderPairs([...t.rows.keys()])) {
    const lo = t.rows.get(lower)!;
    let n = 0;
    for (const [id, row] of t.rows.get(higher)!) {
      const other = lo.get(id);
      if (row.status === 'ok' && other?.status === 'ok' && row.nFrames !== null && row.nFrames === other.nFrames) n++;
    }
    if (n > 0) {
      flags.push({
        condition: higher,
        same_as: lower,
        kind: 'capped',
        items: n,
        message: `${higher} sent as many frames as ${lower} for ${n} item(s) (capped: the video has no more frames, or the context cap)`,
      });
    }
  }
  return flags;
}
