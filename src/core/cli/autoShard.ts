// `--shard auto` (or `auto/N`): the shard K/N read from the cluster scheduler that started this host's job,
// so one job script serves every host. Sources, each 0-based in its own variables, turned into our 1-based K:
//  - Slurm array job: K = (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1,
//    N = SLURM_ARRAY_TASK_COUNT. `--array=1-8` numbers tasks from 1, hence the MIN offset. Part of an array (a task
//    submitted again, an array with gaps) needs N from `auto/N` or FPSWEEP_SHARD_COUNT, and then K = ID + 1;
//    without N it is refused (issue 43: it would silently run as 1/1, or leave a shard never run).
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

/**
 * The array's own count, or the count the user gave (`auto/N`, FPSWEEP_SHARD_COUNT). A whole array (one evenly spaced
 * range, SLURM_ARRAY_TASK_MAX where Slurm gives it, of the count given if any) numbers its shards from its first task.
 * Anything else is part of an array (issue 43): a task submitted again (`--array=2` alone: COUNT=1) or an array with
 * gaps (`--array=0,2,3`: COUNT=3, MAX=3). Read as a whole array it would run the wrong shard (1/1 is the whole package)
 * or leave one never run, so it needs the count of the array it belongs to, its task IDs then being the 0-based shard.
 */
function slurm(env: Env, given: number | null): Found | null {
  const id = whole(env, 'SLURM_ARRAY_TASK_ID', 0);
  if (id === undefined) return null;
  const count = whole(env, 'SLURM_ARRAY_TASK_COUNT', 1);
  const min = whole(env, 'SLURM_ARRAY_TASK_MIN', 0);
  const max = whole(env, 'SLURM_ARRAY_TASK_MAX', 0);
  const step = whole(env, 'SLURM_ARRAY_TASK_STEP', 1) ?? 1;
  if (count === undefined || min === undefined) {
    throw new UsageError(
      'SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN is not: --shard auto needs both (sbatch --array sets them); ' +
        'or give --shard K/N',
    );
  }
  const maxWords = max !== undefined ? `, SLURM_ARRAY_TASK_MAX=${max}` : '';
  const seen = `SLURM_ARRAY_TASK_ID=${id}, SLURM_ARRAY_TASK_MIN=${min}${maxWords}, SLURM_ARRAY_TASK_COUNT=${count}`;
  const oneRange = max === undefined || max - min === (count - 1) * step;
  if (oneRange && count > 1 && (given === null || given === count)) {
    const offset = id - min;
    if (offset < 0 || offset % step !== 0 || offset / step >= count) {
      throw new UsageError(
        `the Slurm array task ${id} (min ${min}, step ${step}, count ${count}) is not one of ${count} evenly spaced tasks: ` +
          `use a plain range such as --array=0-${count - 1}, or give --shard K/N`,
      );
    }
    return { source: `Slurm (${seen})`, rank: offset / step, count };
  }
  if (given === null) {
    const what =
      count === 1
        ? `an array of one task (${seen}): as the whole run it would be shard 1/1, the whole package`
        : `an array that is not one evenly spaced range (${seen}): its tasks would run shards 1..${count} by position, and a shard between would never run`;
    throw new UsageError(
      `--shard auto: ${what}. A task submitted again, or an array with gaps, must say how many shards the run has: ` +
        `FPSWEEP_SHARD_COUNT=N sbatch --array=K-1 … (or --shard auto/N), the array's task IDs then being the 0-based shard (0..N-1); ` +
        `or give --shard K/N`,
    );
  }
  if (id >= given) {
    throw new UsageError(
      `--shard auto: the Slurm array task ${id} is part of an array (${seen}) of ${given} shards, so its ID is read as the 0-based shard, ` +
        `and ${id} is not below ${given}: submit it as --array=K-1 (0..${given - 1}), or give --shard K/${given}`,
    );
  }
  return { source: `Slurm (${seen}; task ${id} of ${given} shards, as FPSWEEP_SHARD_COUNT or auto/N says)`, rank: id, count: given };
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
  const shardCount = given ?? whole(env, 'FPSWEEP_SHARD_COUNT', 1) ?? null;
  const found = [slurm(env, shardCount), kubernetes(env), torchrun(env)].filter((f): f is Found => f !== null);
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
