// Frames × Pixels as a run type, in this process: its report() (what `fpsweep report` and the report panel
// ask the registry for) on a package with every artifact, the dry run's todo counts included.
import { strict as assert } from 'node:assert';
import { PROTOCOLS } from '../../../../src/core/protocols/registry';
import { fpProtocol } from '../../../../src/core/protocols/fp';
import { reportSchema } from '../../../../src/core/protocols/fp/report/schema';
import { makeReportPackage, LAUNCH_LINES } from './report/fixture';

describe('protocols/fp: the run type', function () {
  this.timeout(20_000);

  it("report(): the package's report, through the registry, with the dry run's todo counts", async () => {
    const dir = await makeReportPackage();
    assert.equal(PROTOCOLS.get('fp'), fpProtocol);
    const r = reportSchema.parse(await PROTOCOLS.get('fp')!.report(dir));
    assert.equal(r.packageDir, dir);
    assert.deepEqual(
      r.timing.rows.map((t) => t.condition),
      ['v_8_s224', 'v_blind', 'v_fps0.25_s224', 'v_fps1_s224', 'v_fps2_s224'],
    );
    assert.deepEqual(
      r.checks.map((c) => c.status),
      ['pass', 'pass', 'pass', 'pass', 'pass'],
    );
    assert.deepEqual(r.launch.lines, LAUNCH_LINES);
    // The dry run ran (no todo given): 5 items, 3 of them already have a v_fps1_s224 row.
    assert.equal(r.extrapolation.available, true, r.extrapolation.reason ?? '');
    assert.equal(r.extrapolation.rows.find((x) => x.condition === 'v_fps1_s224')!.todo, 2);
  });
});
