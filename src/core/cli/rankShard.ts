// `--shard K/N|auto` of a run whose ranks each keep their own state (captioning, the cut): K/N as every verb reads it;
// auto from the cluster as the sweep reads it (Slurm array, Kubernetes indexed Job, NODE_RANK/NNODES: cli/options.ts), else from one task per rank as Slurm
// (`srun`: SLURM_PROCID/SLURM_NTASKS) or torchrun (RANK/WORLD_SIZE) number them. Pure over the environment.
import { UsageError } from '../errors';
import type { RankShard } from '../clips/shard';
import { shardOption } from './options';

type Env = Readonly<Record<string, string | undefined>>;

function pair(env: Env, rankVar: string, countVar: string): RankShard | null {
  const r = env[rankVar];
  const n = env[countVar];
  if (r === undefined || r.trim() === '') return null;
  if (!/^\d+$/.test(r.trim()) || n === undefined || !/^\d+$/.test(n.trim()) || Number(n) < 1 || Number(r) >= Number(n)) {
    throw new UsageError(`--shard auto: ${rankVar}='${r}' needs ${countVar} above it (got '${n ?? ''}'); or give --shard K/N`);
  }
  return { index: Number(r) + 1, count: Number(n) };
}

export function rankShardOption(flag: unknown, env: Env = process.env): RankShard | null {
  if (typeof flag !== 'string') return null;
  try {
    return shardOption(flag, env) ?? null;
  } catch (err) {
    // Only "no scheduler told this host its shard" falls through to the per-task ranks.
    if (!/^\s*auto\s*$/i.test(flag) || !/no scheduler told this host/.test((err as Error).message)) throw err;
    const found = pair(env, 'SLURM_PROCID', 'SLURM_NTASKS') ?? pair(env, 'RANK', 'WORLD_SIZE');
    if (!found) throw new UsageError(`${(err as Error).message.replace('NODE_RANK)', 'NODE_RANK, SLURM_PROCID, RANK)')}`);
    return found;
  }
}
