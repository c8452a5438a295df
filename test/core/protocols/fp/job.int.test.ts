// Frames × Pixels's worker job run in this process, the way the worker runs it (worker/jobRunners.ts): a small
// sweep of a copy of the sample package against one stand-in vLLM given with --endpoints, then a job that
// names no package. Spawns a stand-in server.
import { strict as assert } from 'node:assert';
import { JOB_RUNNERS } from '../../../../src/worker/jobRunners';
import { runFpJob } from '../../../../src/core/protocols/fp/job';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { runOptionsSchema } from '../../../../src/core/protocols/fp/sweep/runOptions';
import { readStatus } from '../../../../src/core/protocols/fp/status/status';
import { captureOutput } from '../../../helpers/captureOutput';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from './sample/fixture';
import { artifactKey, assertConsistent, readArtifacts, rowKeySet, startStandin, type Standin } from './sweep/helpers';

describe('protocols/fp: the worker job (runFpJob) in this process', function () {
  this.timeout(120_000);
  let standin: Standin;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    standin = await startStandin({ env: { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' } });
  });
  after(() => standin?.stop());

  it("JOB_RUNNERS.fp runs the sweep: exit 0, every unit's row written, the status says done", async () => {
    assert.equal(JOB_RUNNERS.fp, runFpJob);
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const benchmarks = ['EgoSchema'];
    const conditions = ['v_blind', 'v_1'];
    const job = runOptionsSchema.parse({ package: sample.root, benchmarks, conditions, endpoints: [standin.url], decodeWorkers: 1 });
    const ran = await captureOutput(() => JOB_RUNNERS.fp(job));
    assert.equal(ran.code, 0, ran.err);
    const status = await readStatus(layout);
    assert.equal(status?.state, 'done', status?.summary ?? '');
    assert.equal(status?.pid, process.pid);
    const a = await readArtifacts(layout);
    assertConsistent(a, new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
    const keys = rowKeySet(a);
    const items = sample.plan.items.filter((i) => benchmarks.includes(i.benchmark) && !i.missing);
    assert.ok(items.length > 0);
    for (const i of items) for (const c of conditions) assert.ok(keys.has(artifactKey(i.benchmark, i.item_id, c)), `${i.item_id} ${c} has no row`);
  });

  it('a job on a folder that is no run package: exit 2 and the reason on stderr', async () => {
    const job = runOptionsSchema.parse({ package: '/nonexistent/fpsweep-job-test', endpoints: [standin.url] });
    const ran = await captureOutput(() => JOB_RUNNERS.fp(job));
    assert.equal(ran.code, 2);
    assert.match(ran.err, /is not a run package \(no items\/samples\/\)/);
  });
});
