// Ranks (SPEC-AVTIME-DATA §2): each rank cuts only its videos (blake2b of the stem mod N) with its own state on the
// shared output root; status sums every rank read-only; --shard auto reads the rank as the scheduler numbers it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { shardRankOf } from '../../../../src/core/clips/shard';
import { tmpRoot } from '../caption/videosRoot';
import { callsOf, cutWorkspace, FAKE_AVCUT } from './fakeAvcut';

describe('fpsweep avtime cut --shard', function () {
  this.timeout(120_000);
  let work: string;
  const saved = { ...process.env };

  before(() => {
    work = tmpRoot('cut-shard-');
  });
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN', 'SLURM_PROCID', 'SLURM_NTASKS']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('two ranks cut disjoint halves with their own state; status sums both', async () => {
    const stems = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
    const { input, output, calls } = cutWorkspace(
      work,
      stems.map((s) => `${s}.mp4`),
      {},
    );
    const args = [
      'avtime',
      'cut',
      '--input-root',
      input,
      '--output-root',
      output,
      '--cutter',
      `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`,
    ];

    process.env.SLURM_PROCID = '1';
    process.env.SLURM_NTASKS = '2';
    const dry = JSON.parse((await runCli([...args, '--shard', 'auto', '--dry-run', '--json'])).out);
    assert.deepEqual(dry.shard, { index: 2, count: 2 });
    delete process.env.SLURM_PROCID;
    delete process.env.SLURM_NTASKS;

    for (const k of [1, 2]) {
      fs.writeFileSync(calls, '');
      const r = await runCli([...args, '--shard', `${k}/2`]);
      assert.equal(r.code, 0, r.out + r.err);
      assert.deepEqual(
        callsOf(calls)
          .map((l) => l.split(' ')[0])
          .sort(),
        stems.filter((s) => shardRankOf(s, 2) === k - 1),
        `rank ${k}/2 cuts its videos only`,
      );
      assert.ok(fs.existsSync(path.join(output, '.fpsweep-cut', `rank-${k}-of-2`, 'status.json')), `rank ${k}'s own status`);
    }
    const status = JSON.parse((await runCli(['status', '--package', output, '--run-type', 'cut', '--json'])).out);
    assert.deepEqual([status.total, status.completed, status.failed, status.pending], [6, 6, 0, 0]);
    assert.deepEqual(
      status.ranks.map((r: { rank: number; of: number }) => `${r.rank + 1}/${r.of}`),
      ['1/2', '2/2'],
    );
    for (const v of status.videos) assert.equal(v.rank, shardRankOf(v.stem, 2));
  });
});
