// Whether sharded copies, merged, finish the plan their runs were started on (issue 43): a copy whose task was cut
// short, or a shard no task ran, leaves units that nothing else will write; `merge` refuses to call that done and
// `status` over the copies says the same. The plan is the one the copies' runs recorded (logs/run_identity.jsonl:
// their benchmarks, conditions and shard count); a unit is left when no row (the package's or a copy's) writes it
// and no failure line (a run asked it and it failed: a rerun asks it again) names it.
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { PackageLayout } from '../package/layout';
import { loadPackage } from '../package/load';
import { readResultsCsv } from '../package/resultsCsv';
import { readFailedKeys } from '../package/failedKeys';
import { unitKey } from '../package/unitKey';
import { buildWorkPlan } from '../plan/buildWorkPlan';
import { DEFAULT_CONDITIONS } from '../rules/conditions';
import { itemShardKey, shardOf, shardSpecSchema, type ShardSpec } from '../shard/shard';
import { runIdentityFile, runIdentitySchema } from '../../../runner/identity';
import { parseBoundedJson } from '../../../io/boundedJson';
import { liveLockHolder } from '../../../runner/lock';

/** What a copy's runs recorded of their plan. */
export interface CopyRuns {
  root: string;
  shard: ShardSpec | null;
  /** null: every benchmark. */
  benchmarks: string[] | null;
  conditions: string[];
  runs: number;
}

const optionsSchema = z
  .object({ shard: shardSpecSchema.optional().nullable(), benchmarks: z.array(z.string()).optional().nullable(), conditions: z.array(z.string()).optional() })
  .passthrough();

/** A copy's run identities read as its plan: the last run's shard, the union of benchmarks and conditions. */
export async function readCopyRuns(root: string): Promise<CopyRuns> {
  const layout = new PackageLayout(root);
  const text = await fs.readFile(runIdentityFile(layout), 'utf8').catch(() => '');
  let shard: ShardSpec | null = null;
  let benchmarks: Set<string> | null = new Set();
  const conditions = new Set<string>();
  let runs = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const o = optionsSchema.parse(runIdentitySchema.parse(parseBoundedJson(line)).options);
      runs++;
      shard = o.shard ?? null;
      if (!o.benchmarks) benchmarks = null;
      else if (benchmarks) for (const b of o.benchmarks) benchmarks.add(b);
      for (const c of o.conditions ?? []) conditions.add(c);
    } catch {
      /* a torn or foreign line: not a run we can read */
    }
  }
  return { root: layout.root, shard, benchmarks: runs === 0 || benchmarks === null ? null : [...benchmarks], conditions: [...conditions], runs };
}

export interface ShardLeft {
  shard: ShardSpec | null;
  /** The copy that ran this shard (null: none of those given). */
  copy: string | null;
  /** Units nothing has written or failed. */
  left: number;
  /** A few of them, `benchmark/item_id/condition`. */
  examples: string[];
  /** Whether the copy's worker is running now (its task not over yet). */
  running: boolean;
  /** The command that finishes it. */
  command: string;
}

export interface Completeness {
  /** Units of the plan (benchmarks × conditions) still to write in the package before the merge. */
  planned: number;
  left: number;
  failed: number;
  /** Per shard with units left (or a running copy), in shard order. */
  shards: ShardLeft[];
  benchmarks: string[] | null;
  conditions: string[];
  count: number | null;
}

const EXAMPLES = 3;

/**
 * What the merge of `copies` into `into` leaves undone. `written`: whether a unit has a row in a copy (the merge's new
 * rows; `into`'s own rows are read here); failure lines are read from `into` and every copy.
 */
export async function mergedCompleteness(
  into: string,
  copies: readonly CopyRuns[],
  written: (benchmark: string, itemId: string, condition: string) => boolean,
): Promise<Completeness> {
  const layout = new PackageLayout(into);
  const ran = copies.filter((c) => c.runs > 0);
  const benchmarks = ran.length === 0 || ran.some((c) => c.benchmarks === null) ? null : [...new Set(ran.flatMap((c) => c.benchmarks!))];
  const named = new Set(ran.flatMap((c) => c.conditions));
  const conditions = named.size ? [...named] : [...DEFAULT_CONDITIONS];
  const counts = [...new Set(copies.map((c) => c.shard?.count).filter((n): n is number => n !== undefined))];
  const count = counts.length === 1 ? counts[0] : null;
  const pkg = await loadPackage(layout, { benchmarks: benchmarks ?? undefined });
  const plan = await buildWorkPlan(pkg, await readResultsCsv(layout.resultsCsv), { conditions });
  const failed = new Set<string>();
  for (const root of [layout.root, ...copies.map((c) => c.root)])
    for (const k of (await readFailedKeys(new PackageLayout(root).failuresLog)).keys) failed.add(k);
  const byShard = new Map<number, string[]>();
  let failedCount = 0;
  for (const u of plan.units) {
    const key = unitKey(u.benchmark, u.item.item_id, u.condition);
    if (written(u.benchmark, u.item.item_id, u.condition)) continue;
    if (failed.has(key)) {
      failedCount++;
      continue;
    }
    const k = count === null ? 1 : shardOf(itemShardKey(u.hash ?? undefined, u.benchmark, u.item.item_id), count);
    const list = byShard.get(k) ?? [];
    list.push(`${u.benchmark}/${u.item.item_id}/${u.condition}`);
    byShard.set(k, list);
  }
  const scope = `${benchmarks ? ` --bench ${benchmarks.join(',')}` : ''}${named.size ? ` --conds ${conditions.join(',')}` : ''}`;
  const shards: ShardLeft[] = [];
  for (let k = 1; k <= (count ?? 1); k++) {
    const spec = count === null ? null : { index: k, count };
    const copy = copies.find((c) => (spec ? c.shard?.index === k && c.shard.count === count : true)) ?? null;
    const running = copy ? (await liveLockHolder(new PackageLayout(copy.root))) !== null : false;
    const left = byShard.get(k) ?? [];
    if (left.length === 0 && !running) continue;
    const shardFlag = spec ? ` --shard ${k}/${count}` : '';
    const command = copy
      ? `fpsweep run --package ${copy.root}${shardFlag}${scope}`
      : `cp -a ${layout.root} COPY && fpsweep run --package COPY${shardFlag}${scope}`;
    shards.push({ shard: spec, copy: copy?.root ?? null, left: left.length, examples: left.slice(0, EXAMPLES), running, command });
  }
  const left = [...byShard.values()].reduce((a, l) => a + l.length, 0);
  return { planned: plan.units.length, left, failed: failedCount, shards, benchmarks, conditions, count };
}

/** One line per shard with work left: what it still has to do and the command that finishes it. */
export function completenessLines(c: Completeness): string[] {
  return c.shards.map((s) => {
    const name = s.shard ? `shard ${s.shard.index}/${s.shard.count}` : 'the package';
    const where = s.copy ? ` (${s.copy})` : ' (no copy given ran it)';
    if (s.running) return `${name}${where}: still running, ${s.left} unit(s) not written yet; merge once its task has ended`;
    return `${name}${where}: ${s.left} unit(s) still to do (e.g. ${s.examples.join(', ')}); finish it with \`${s.command}\`, then merge again`;
  });
}

/** `status` over copies: each copy's results CSV as what is written (nothing is merged or changed). */
export async function copiesCompleteness(into: string, roots: readonly string[]): Promise<Completeness> {
  const copies = await Promise.all(roots.map((r) => readCopyRuns(r)));
  const done = await Promise.all(copies.map(async (c) => (await readResultsCsv(new PackageLayout(c.root).resultsCsv)).done));
  return mergedCompleteness(into, copies, (b, i, c) => done.some((d) => d.has(b, i, c)));
}
