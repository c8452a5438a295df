// --shard auto: K/N from Slurm array jobs, Kubernetes indexed Jobs and NODE_RANK/NNODES; missing or
// contradictory values are usage errors (exit 2), never a guess.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { UsageError } from '../../../src/core/errors';
import { isAutoShard, resolveAutoShard } from '../../../src/core/cli/autoShard';
import { shardOption } from '../../../src/core/cli/options';

const pick = ({ index, count }: { index: number; count: number }) => ({ index, count });
const usage = (f: () => unknown, re: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof UsageError && re.test((e as Error).message), `expected a UsageError matching ${re}`);

describe('shard: --shard auto', () => {
  it('reads a Slurm array with any first index and step: every task gets a distinct K in 1..N', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 2, max: 40 }), (min, step, count) => {
        const ks = new Set<number>();
        for (let i = 0; i < count; i++) {
          const env = {
            SLURM_ARRAY_TASK_ID: String(min + i * step),
            SLURM_ARRAY_TASK_MIN: String(min),
            SLURM_ARRAY_TASK_STEP: String(step),
            SLURM_ARRAY_TASK_COUNT: String(count),
            ...(i % 2 ? { SLURM_ARRAY_TASK_MAX: String(min + (count - 1) * step) } : {}),
          };
          const s = resolveAutoShard('auto', env);
          assert.equal(s.count, count);
          assert.equal(s.index, i + 1);
          ks.add(s.index);
        }
        assert.equal(ks.size, count);
      }),
      { numRuns: 200 },
    );
  });

  it('takes --array=1-4 task 1 as shard 1/4, not 2/4 (the MIN offset)', () => {
    const env = { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '4', SLURM_ARRAY_TASK_COUNT: '4' };
    assert.deepEqual((({ index, count }) => ({ index, count }))(resolveAutoShard('auto', env)), { index: 1, count: 4 });
  });

  it('refuses a Slurm array with gaps, or without its count or first index', () => {
    usage(() => resolveAutoShard('auto', { SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '3' }), /evenly spaced/);
    usage(() => resolveAutoShard('auto', { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_MIN: '0' }), /SLURM_ARRAY_TASK_COUNT/);
    usage(() => resolveAutoShard('auto', { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: '4' }), /SLURM_ARRAY_TASK_MIN/);
    usage(() => resolveAutoShard('auto', { SLURM_ARRAY_TASK_ID: 'x', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '4' }), /whole number/);
  });

  it("refuses part of an array without the run's shard count (issue 43): a task submitted again, an array with gaps", () => {
    // What Slurm 22.05 sets for `sbatch --array=2` and for `sbatch --array=0,2,3` (seen on a real slurmd).
    const again = { SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_MIN: '2', SLURM_ARRAY_TASK_MAX: '2', SLURM_ARRAY_TASK_COUNT: '1', SLURM_ARRAY_TASK_STEP: '1' };
    usage(() => resolveAutoShard('auto', again), /an array of one task .*shard 1\/1.*FPSWEEP_SHARD_COUNT=N/);
    const gaps = (id: number) => ({
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_MIN: '0',
      SLURM_ARRAY_TASK_MAX: '3',
      SLURM_ARRAY_TASK_COUNT: '3',
      SLURM_ARRAY_TASK_STEP: '1',
    });
    for (const id of [0, 2, 3]) usage(() => resolveAutoShard('auto', gaps(id)), /not one evenly spaced range.*never run.*FPSWEEP_SHARD_COUNT=N/);
    // With the run's count the task ID is the 0-based shard: the resubmitted task and the gapped array run their own.
    assert.deepEqual(pick(resolveAutoShard('auto', { ...again, FPSWEEP_SHARD_COUNT: '4' })), { index: 3, count: 4 });
    assert.deepEqual(pick(resolveAutoShard('auto/4', again)), { index: 3, count: 4 });
    assert.deepEqual(
      [0, 2, 3].map((id) => pick(resolveAutoShard('auto', { ...gaps(id), FPSWEEP_SHARD_COUNT: '4' }))),
      [
        { index: 1, count: 4 },
        { index: 3, count: 4 },
        { index: 4, count: 4 },
      ],
    );
    usage(
      () => resolveAutoShard('auto', { ...again, SLURM_ARRAY_TASK_ID: '6', SLURM_ARRAY_TASK_MIN: '6', SLURM_ARRAY_TASK_MAX: '6', FPSWEEP_SHARD_COUNT: '4' }),
      /6 is not below 4.*--shard K\/4/,
    );
    // A whole array keeps its first-task offset whether or not the count is given again: --array=4-7 is 1..4.
    const whole = (id: number) => ({
      SLURM_ARRAY_TASK_ID: String(id),
      SLURM_ARRAY_TASK_MIN: '4',
      SLURM_ARRAY_TASK_MAX: '7',
      SLURM_ARRAY_TASK_COUNT: '4',
      FPSWEEP_SHARD_COUNT: '4',
    });
    assert.deepEqual(
      [4, 5, 6, 7].map((id) => resolveAutoShard('auto', whole(id)).index),
      [1, 2, 3, 4],
    );
  });

  it('reads a Kubernetes indexed Job with the count from auto/N or FPSWEEP_SHARD_COUNT, and needs one of them', () => {
    assert.equal(resolveAutoShard('auto/8', { JOB_COMPLETION_INDEX: '0' }).index, 1);
    assert.equal(resolveAutoShard('auto/8', { JOB_COMPLETION_INDEX: '7' }).index, 8);
    assert.deepEqual((({ index, count }) => ({ index, count }))(resolveAutoShard('auto', { JOB_COMPLETION_INDEX: '2', FPSWEEP_SHARD_COUNT: '3' })), {
      index: 3,
      count: 3,
    });
    usage(() => resolveAutoShard('auto', { JOB_COMPLETION_INDEX: '2' }), /auto\/N or set FPSWEEP_SHARD_COUNT/);
    usage(() => resolveAutoShard('auto/2', { JOB_COMPLETION_INDEX: '2' }), /not below the 2 shards/);
    usage(() => resolveAutoShard('auto/4', { JOB_COMPLETION_INDEX: '1', FPSWEEP_SHARD_COUNT: '3' }), /says 4 shards but/);
  });

  it('reads NODE_RANK / NNODES and needs both', () => {
    assert.deepEqual((({ index, count }) => ({ index, count }))(resolveAutoShard('auto', { NODE_RANK: '3', NNODES: '4' })), { index: 4, count: 4 });
    usage(() => resolveAutoShard('auto', { NODE_RANK: '3' }), /NNODES/);
    usage(() => resolveAutoShard('auto', { NODE_RANK: '4', NNODES: '4' }), /not below/);
  });

  it('accepts sources that agree and refuses ones that disagree', () => {
    const agree = { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '2', NODE_RANK: '1', NNODES: '2' };
    assert.equal(resolveAutoShard('auto', agree).index, 2);
    usage(() => resolveAutoShard('auto', { ...agree, NODE_RANK: '0' }), /disagree/);
    usage(() => resolveAutoShard('auto', { ...agree, NNODES: '3' }), /disagree/);
  });

  it('refuses auto with no scheduler, and a malformed auto/N', () => {
    usage(() => resolveAutoShard('auto', {}), /no scheduler told this host its shard/);
    usage(() => resolveAutoShard('auto/0', { NODE_RANK: '0', NNODES: '1' }), /N ≥ 1/);
    usage(() => resolveAutoShard('auto/x', { NODE_RANK: '0', NNODES: '1' }), /N ≥ 1/);
    assert.ok(isAutoShard('AUTO/3') && isAutoShard(' auto ') && !isAutoShard('1/2') && !isAutoShard('automatic'));
  });

  it('goes through --shard and the SHARD knob alike; K/N is unchanged', () => {
    const env = { NODE_RANK: '1', NNODES: '3' };
    assert.deepEqual(shardOption('auto', env), { index: 2, count: 3 });
    assert.deepEqual(shardOption(undefined, { ...env, SHARD: 'auto' }), { index: 2, count: 3 });
    assert.deepEqual(shardOption('2/5', env), { index: 2, count: 5 });
    assert.equal(shardOption(undefined, {}), undefined);
    usage(() => shardOption(undefined, { SHARD: 'auto' }), /^SHARD auto/);
  });
});
