// `fpsweep stop` and `fpsweep status` on an AVTime output root: status prints the run's stages, shards and
// judge passes (progress.ts's view); stop is the engine's (the stop file, then SIGTERM to the lock holder), the
// worker's run session fails closed on it, and --wait returns once it has given the lock back. The target stub
// holds every answer, so the run cannot end before the stop: no race.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { stopFile } from '../../../../../src/core/runner/runRoot';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { readAvtimeStatus } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub, startHeldDetachedRun } from './benchFixture';
import type { Stub } from './httpStub';
import { waitFor } from '../../../../helpers/waitFor';

const cli = runCli;

describe('fpsweep stop / status on an AVTime output root', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('status shows the live stages and shards; stop --wait ends the worker (stop file + SIGTERM), lock released, status says stopped', async () => {
    const out = path.join(tmpDir('stop'), 'r1');
    const { started } = await startHeldDetachedRun(cli, stubs, out); // every input is held
    assert.equal(started.code, 0, started.err);
    const layout = new AvtimeRunLayout(out, 'r1');
    // The status file is written on a timer: wait for the write that shows the held inference, its stage and both
    // its shards running (the run cannot move on; the shards' states land a write after the stage's).
    let st: Awaited<ReturnType<typeof readAvtimeStatus>> = null;
    await waitFor(
      async () => {
        const now = (st = await readAvtimeStatus(layout.statusFile));
        return now?.stages.find((x) => x.name === 'infer')?.state === 'running' && now.shards.length === 2 && now.shards.every((x) => x.state === 'running');
      },
      30_000,
      () => `a status write showing infer and its 2 shards running (last: ${JSON.stringify(st?.shards ?? null)})`,
    );
    const live = await cli(['status', '--package', out]);
    assert.equal(live.code, 0, live.err);
    assert.match(live.out, /^AVTime run r1: running \(worker alive\)/);
    assert.match(live.out, /\n {2}inputs +done +3 done/);
    assert.match(live.out, /\n {2}infer +running +0 done, 3 to do, 0 failed/);
    assert.match(live.out, /\n {4}shard 0 +running +0\/2 written/);
    assert.match(live.out, /\n {4}shard 1 +running +0\/1 written/);
    assert.match(live.out, /\n {2}judge +todo/);
    const stop = await cli(['stop', '--package', out, '--wait']);
    assert.equal(stop.code, 0, stop.err);
    // A canonical run stopped during target inference cannot resume: the line says so (not "--resume"). The stop
    // comes by two ways (the stop file, written first, then SIGTERM); a SIGTERM that finds the stop file is that
    // same request, so the summary names the stop file whichever the worker noticed first.
    assert.match(
      stop.out,
      new RegExp(
        String.raw`asked AVTime worker pid \d+ to stop \(stop file written, SIGTERM sent\): in-flight requests are cut, the run ends failed\n` +
          String.raw`stopped by the stop file \(canonical target shards never resume: start a new run \(new --output-root\)\)\n$`,
      ),
    );
    assert.equal(fs.existsSync(layout.lockFile), false);
    assert.equal((await readAvtimeStatus(layout.statusFile))?.state, 'failed');
    assert.equal(fs.existsSync(stopFile(layout)), true, "the stop is the engine's: the stop file (cleared by the next run's session), then SIGTERM");
    const after = await cli(['status', '--package', out]);
    assert.match(after.out, /^AVTime run r1: (failed|stopped) /);
    assert.match(after.out, /last: stopped by the stop file \(canonical target shards never resume/);
    const again = await cli(['stop', '--package', out]);
    assert.match(again.out, /no AVTime worker is running on this output root/);
  });

  it('status on a finished run prints the six scores; --json gives the view', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('stop'), 'r1');
    const s = [await targetStub(), await targetStub(), await judgeStub()];
    stubs.push(...s);
    const run = await cli([
      'avtime',
      'run',
      '--bench-root',
      root,
      '--output-root',
      out,
      '--run-id',
      'r1',
      '--target-endpoints',
      `${s[0].url},${s[1].url}`,
      '--judge-endpoint',
      s[2].url,
    ]);
    assert.equal(run.code, 0, run.err);
    const st = await cli(['status', '--package', out]);
    assert.match(st.out, /^AVTime run r1: done · /);
    assert.match(st.out, /\n {2}score +done +14 done/);
    assert.match(st.out, /\n {4}judge pass 1 \(512 tokens\) done +10\/10 valid, 0 failed/);
    assert.match(st.out, /\n {2}scores: T2E-A [\d.]+ T2E-V [\d.]+ E2T-A [\d.]+ E2T-V [\d.]+ E2E-A [\d.]+ E2E-V [\d.]+\n/);
    const json = JSON.parse((await cli(['status', '--package', out, '--json'])).out);
    assert.equal(json.state, 'done');
    assert.deepEqual(Object.keys(json.scores).sort(), ['E2E-A', 'E2E-V', 'E2T-A', 'E2T-V', 'T2E-A', 'T2E-V']);
  });
});
