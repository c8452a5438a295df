// `--shard auto` (or `auto/N`): the shard K/N read from the cluster scheduler that started this host's job,
// so one job script serves every host. Sources, each 0-based in its own variables, turned into our 1-based K:
//  - Slurm array job: K = (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1,
//    N = SLURM_ARRAY_TASK_COUNT. `--array=1-8` numbers tasks from 1, hence the MIN offset; an array with
//    gaps (`--array=0,3,7`) has no such K and is refused.
//  - Kubernetes indexed Job: K = JOB_COMPLETION_INDEX + 1; N from `auto/N` or FPSWEEP_SHARD_COUNT (a Job
//    does not tell its pods the completion count).
//  - torchrun-style launchers: K = NODE_RANK + 1, N = NNODES.
// Several sources that agree are fine; disagreeing ones, a missing count, or a rank outside the count are
// usage errors (exit 2) naming the variables, never a guess: a wrong shard runs another host's items.
import { UsageError } from '../errors';
import type { ShardSpec } from './shardSpec';

export type Env = Readonly<Record<string, string | undefined>>;

interface Found {
  source: string;
  /** 0-based rank. */
  rank: number;
  count: number | null;
}

/** True for `auto` and `auto/N` (any case, spaces allowed). */
export function isAutoShard(text: string): boolean {
  return /^\s*auto\s*(\/.*)?$/i.test(text);
}

function whole(env: Env, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${name} must be a whole number ≥ ${min} for --shard auto, got '${raw}'`);
  }
  return n;
}

function slurm(env: Env): Found | null {
  const id = whole(env, 'SLURM_ARRAY_TASK_ID', 0);
  if (id === undefined) return null;
  const count = whole(env, 'SLURM_ARRAY_TASK_COUNT', 1);
  const min = whole(env, 'SLURM_ARRAY_TASK_MIN', 0);
  const step = whole(env, 'SLURM_ARRAY_TASK_STEP', 1) ?? 1;
  if (count === undefined || min === undefined) {
    throw new UsageError(
      'SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN is not: --shard auto needs both (sbatch --array sets them); ' +
        'or give --shard K/N',
    );
  }
  const offset = id - min;
  if (offset < 0 || offset % step !== 0 || offset / step >= count) {
    throw new UsageError(
      `the Slurm array task ${id} (min ${min}, step ${step}, count ${count}) is not one of ${count} evenly spaced tasks: ` +
        `use a plain range such as --array=0-${count - 1}, or give --shard K/N`,
    );
  }
  return { source: `Slurm (SLURM_ARRAY_TASK_ID=${id}, SLURM_ARRAY_TASK_MIN=${min}, SLURM_ARRAY_TASK_COUNT=${count})`, rank: offset / step, count };
}

function kubernetes(env: Env): Found | null {
  const index = whole(env, 'JOB_COMPLETION_INDEX', 0);
  if (index === undefined) return null;
  const count = whole(env, 'FPSWEEP_SHARD_COUNT', 1) ?? null;
  return { source: `a Kubernetes indexed Job (JOB_COMPLETION_INDEX=${index}${count !== null ? `, FPSWEEP_SHARD_COUNT=${count}` : ''})`, rank: index, count };
}

function torchrun(env: Env): Found | null {
  const rank = whole(env, 'NODE_RANK', 0);
  if (rank === undefined) return null;
  const count = whole(env, 'NNODES', 1);
  if (count === undefined) throw new UsageError('NODE_RANK is set but NNODES is not: --shard auto needs both; or give --shard K/N');
  return { source: `torchrun-style NODE_RANK=${rank}, NNODES=${count}`, rank, count };
}

/** The shard `auto` or `auto/N` stands for in this environment; a UsageError says what is missing or contradicts. */
export function resolveAutoShard(text: string, env: Env, what = '--shard'): ShardSpec & { source: string } {
  const m = /^\s*auto\s*(?:\/\s*(\S+?)\s*)?$/i.exec(text);
  if (!m) throw new UsageError(`${what} must be K/N, auto or auto/N, got '${text}'`);
  let given: number | null = null;
  if (m[1] !== undefined) {
    given = Number(m[1]);
    if (!/^\d+$/.test(m[1]) || !Number.isSafeInteger(given) || given < 1) throw new UsageError(`${what} auto/N needs a whole number N ≥ 1, got '${text}'`);
  }
  const found = [slurm(env), kubernetes(env), torchrun(env)].filter((f): f is Found => f !== null);
  if (found.length === 0) {
    throw new UsageError(
      `${what} ${text.trim()}: no scheduler told this host its shard (looked for SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, NODE_RANK); ` +
        'give --shard K/N instead',
    );
  }
  const [first, ...rest] = found;
  for (const other of rest) {
    if (other.rank !== first.rank || (other.count !== null && first.count !== null && other.count !== first.count)) {
      throw new UsageError(`${what} auto: ${first.source} and ${other.source} disagree; unset one, or give --shard K/N`);
    }
  }
  const counts = [...new Set(found.map((f) => f.count).filter((c): c is number => c !== null))];
  if (given !== null && counts.length && counts[0] !== given) {
    throw new UsageError(`${what} ${text.trim()} says ${given} shards but ${found.find((f) => f.count !== null)!.source} says ${counts[0]}`);
  }
  const count = given ?? counts[0] ?? null;
  if (count === null) {
    throw new UsageError(`${what} auto: ${first.source} gives the rank but not the number of shards: use --shard auto/N or set FPSWEEP_SHARD_COUNT`);
  }
  if (first.rank >= count) throw new UsageError(`${what} auto: ${first.source} gives rank ${first.rank}, not below the ${count} shards`);
  return { index: first.rank + 1, count, source: first.source };
}
