// AVTime-Bench's worker job run in this process, the way the worker runs it (worker/jobRunners.ts): a whole run
// of a small hand-made bench against stub target and judge servers (in this process), then a job the schema refuses.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { JOB_RUNNERS } from '../../../../src/worker/jobRunners';
import { avtimeProtocol } from '../../../../src/core/protocols/avtime';
import type { AvtimeJob } from '../../../../src/core/protocols/avtime/stages/jobSchema';
import { captureOutput } from '../../../helpers/captureOutput';
import { makeBench, judgeStub, targetStub } from './stages/benchFixture';
import { tmpDir } from './stages/fixtures';
import type { Stub } from './stages/httpStub';

describe('protocols/avtime: the worker job in this process', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  /** The job listens for SIGTERM while it runs; what it leaves attached is taken off again after each test. */
  let sigterm: NodeJS.SignalsListener[] = [];
  beforeEach(() => {
    sigterm = process.listeners('SIGTERM');
  });
  afterEach(async () => {
    for (const l of process.listeners('SIGTERM')) if (!sigterm.includes(l)) process.off('SIGTERM', l);
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('JOB_RUNNERS.avtime runs every stage: exit 0, the scores line, and a scored report', async () => {
    const { root } = makeBench();
    const [t0, t1, j] = await Promise.all([targetStub(), targetStub(), judgeStub()]);
    stubs.push(t0, t1, j);
    const out = path.join(tmpDir('job'), 'r1');
    const job: AvtimeJob = { verb: 'run', options: { benchRoot: root, targetEndpoints: [t0.url, t1.url], judgeEndpoint: j.url }, outputRoot: out, runId: 'r1' };
    const ran = await captureOutput(() => JOB_RUNNERS.avtime(job));
    assert.equal(ran.code, 0, ran.out + ran.err);
    assert.match(ran.out, /^scores: T2E-A [\d.]+ T2E-V [\d.]+ E2T-A [\d.]+ E2T-V [\d.]+ E2E-A [\d.]+ E2E-V [\d.]+ over 14 queries/m);
    const report = await avtimeProtocol.report(out);
    assert.equal(report.scored, true);
    assert.equal(report.scores.length, 6);
    assert.equal(report.runId, 'r1');
  });

  it('a job its schema refuses: exit 2, nothing run', async () => {
    const ran = await captureOutput(() => JOB_RUNNERS.avtime({ verb: 'fly', options: {}, outputRoot: tmpDir('job-bad'), runId: 'r1' } as unknown as AvtimeJob));
    assert.equal(ran.code, 2);
    assert.match(ran.err, /bad --avtime job/);
  });
});
