// Dry-run counts on the generated sample package (src/core/protocols/fp/sample), checked against the sample's
// own ground truth (its plan: video traits, missing videos, existing rows) with SPEC §2 rules.
import { strict as assert } from 'node:assert';
import { dryRun, type DryRunReport } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { loadPackage } from '../../../../../src/core/protocols/fp/package/load';
import { readResultsCsv } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import { buildWorkPlan } from '../../../../../src/core/protocols/fp/plan';
import { DEFAULT_CONDITIONS, parseCondition } from '../../../../../src/core/protocols/fp/rules/conditions';
import { getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';

describe('dryrun on the sample package', () => {
  let sample: SampleFixture;
  let report: DryRunReport;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    sample = await getSamplePackage();
    report = await dryRun(sample.root, { conditions: DEFAULT_CONDITIONS });
  });

  it('counts every benchmark × condition as the sample says it should be', () => {
    const { plan } = sample;
    const videos = new Map(plan.videos.map((v) => [v.hash, v]));
    const existing = new Set(plan.existing.map((e) => `${e.benchmark}/${e.item_id}/${e.condition}`));
    const expected = new Map<string, Record<string, number>>();
    for (const item of plan.items) {
      for (const name of DEFAULT_CONDITIONS) {
        const cond = parseCondition(name);
        const key = `${item.benchmark}/${name}`;
        const n = expected.get(key) ?? { todo: 0, NA: 0, reuse: 0, done: 0, no_video: 0, bad_meta: 0, context_refusals: 0, failed_before: 0 };
        expected.set(key, n);
        const v = item.hash ? videos.get(item.hash) : undefined;
        if (existing.has(`${item.benchmark}/${item.item_id}/${name}`)) n.done++;
        else if (item.missing || !v) n.no_video++;
        else if (v.tooShort && (cond.kind === 'fps' || (cond.kind === 'count' && cond.nFrames > 32))) n.NA++;
        else if (name === 'v_32_s448' && v.storedShortSide === 480) n.reuse++;
        else {
          n.todo++;
          // square and long: fps2 sends 1024 frames of 224×224, ~67.6k tokens (SPEC §2.5)
          if (name === 'v_fps2_s224' && v.square && v.long) n.context_refusals++;
        }
      }
    }
    const got = new Map(report.rows.map(({ benchmark, condition, ...counts }) => [`${benchmark}/${condition}`, counts]));
    assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort());
    for (const [key, n] of expected) assert.deepEqual(got.get(key), n, key);
    assert.ok(
      report.totals.no_video > 0 && report.totals.reuse > 0 && report.totals.NA > 0 && report.totals.context_refusals > 0,
      'the sample exercises every status',
    );
    assert.deepEqual(report.problems, []);
    assert.equal(report.torn, null);
  });

  it('a stored-480 item without a v_32 row gets its reuse row after the v_32 unit', async () => {
    const pkg = await loadPackage(sample.root);
    const plan = await buildWorkPlan(pkg, await readResultsCsv(pkg.layout.resultsCsv), { conditions: DEFAULT_CONDITIONS });
    const reuse = plan.units.filter((u) => u.status === 'reuse');
    assert.ok(reuse.some((u) => u.reuse!.stored) && reuse.some((u) => u.reuse!.from), 'both kinds are in the sample');
    for (const u of reuse) {
      const fromPlan = u.reuse!.from;
      assert.equal(Boolean(u.reuse!.stored) !== Boolean(fromPlan), true);
      if (fromPlan) {
        assert.equal(fromPlan.condition, 'v_32');
        assert.equal(fromPlan.item, u.item);
        assert.ok(fromPlan.dependents!.includes(u));
      }
    }
  });
});
