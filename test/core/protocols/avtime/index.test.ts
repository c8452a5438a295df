// AVTime-Bench as a run type, in this process: its report() (what the registry hands `fpsweep report` and the
// report panel) on a scored run, and on a run that stopped before scoring.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { PROTOCOLS } from '../../../../src/core/protocols/registry';
import { avtimeProtocol } from '../../../../src/core/protocols/avtime';
import { tmpDir } from './stages/fixtures';
import { RUN_ID, writeRun } from './runFixture';

describe('protocols/avtime: the run type', () => {
  it("report(): a scored run's six scores, through the registry", async () => {
    const root = writeRun(path.join(tmpDir('index-report'), 'outputs', 'avtime-bench'), 'score');
    assert.equal(PROTOCOLS.get('avtime'), avtimeProtocol);
    const r = await PROTOCOLS.get('avtime')!.report(root);
    assert.equal(r.kind, 'avtime');
    assert.equal(r.runId, RUN_ID);
    assert.equal(r.outputRoot, root);
    assert.equal(r.scored, true);
    assert.deepEqual(
      r.scores.map((c: { key: string; score: number }) => [c.key, c.score]),
      [
        ['T2E-A', 0.75],
        ['T2E-V', 0],
        ['E2T-A', 3500 / 6000],
        ['E2T-V', 0],
        ['E2E-A', 1],
        ['E2E-V', 0],
      ],
    );
    assert.equal(r.traces, 6);
    assert.deepEqual(r.problems, []);
  });

  it('report() of a run that stopped before scoring: no scores, still a report', async () => {
    const root = writeRun(path.join(tmpDir('index-report-early'), 'outputs', 'avtime-bench'), 'normalize');
    const r = await avtimeProtocol.report(root);
    assert.equal(r.scored, false);
    assert.deepEqual(r.scores, []);
    assert.equal(r.traces, 0);
  });
});
