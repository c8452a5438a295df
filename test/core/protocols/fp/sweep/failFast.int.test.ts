// Systematic failure on the sample package with launched stand-in servers: the pre-flight stops a run
// whose servers refuse the plan's first unit before any row; fail-fast stops a run whose servers break
// after it, keeping every row and logging only the requests that were sent; 1 failure in 10 runs to
// the end. Mechanisms are asserted by counts (requests sent, failures, rows), never by timing.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { runSweep, type SweepResult } from '../../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema, type RunOptionsInput } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { readStatus } from '../../../../../src/core/protocols/fp/status/status';
import { formatStatus } from '../../../../../src/core/protocols/fp/status/formatStatus';
import { dryRun } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { FAKE_VLLM, assertConsistent, artifactKey, freePortRange, readArtifacts, withEnv } from './helpers';

const CONDS = ['v_8_s224', 'v_32_s168'];
const WORKERS = 6;
const SERVERS = 2;

async function sweep(pkg: string, env: Record<string, string | undefined>, opts: Partial<RunOptionsInput> = {}): Promise<SweepResult> {
  const base = await freePortRange(SERVERS);
  return withEnv({ VLLM_BIN: FAKE_VLLM, ...env }, () =>
    runSweep(
      runOptionsSchema.parse({
        package: pkg,
        ngpu: SERVERS,
        basePort: base,
        vllmBin: FAKE_VLLM,
        decodeWorkers: 2,
        workers: WORKERS,
        conditions: CONDS,
        ...opts,
      }),
      defaultSweepDeps,
    ),
  );
}

async function lines(file: string): Promise<Record<string, unknown>[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('runner: systematic failure (pre-flight and fail-fast)', function () {
  this.timeout(180_000);
  let todo: number;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    const shared: SampleFixture = await getSamplePackage();
    const dr = await dryRun(shared.root, { conditions: CONDS });
    todo = dr.rows.reduce((s, r) => s + r.todo, 0);
    assert.ok(todo > 60, `the plan has ${todo} requests: enough to tell a stop from the end`);
  });

  it('servers that answer 400 to every request: the pre-flight stops the run before any row, with their words', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const before = await readArtifacts(layout);
    const res = await sweep(sample.root, { FPSWEEP_STANDIN_FAULTS: 'status400Every=1' });
    assert.equal(res.exitCode, 1, res.summary);
    assert.equal(res.stopReason?.rule, 'preflight');
    assert.match(res.stopReason!.message, /400 to every request/);
    assert.match(res.summary, /pre-flight failed/);
    const after = await readArtifacts(layout);
    assert.equal(after.rows.length, before.rows.length, 'no row written (not even NA rows)');
    assert.equal((await lines(layout.failuresLog)).length, 0, 'nothing logged as a failure');
    const pre = JSON.parse(await fs.readFile(path.join(layout.logsDir, 'preflight.json'), 'utf8'));
    assert.equal(pre.ok, false);
    assert.equal(pre.servers.length, SERVERS);
    for (const s of pre.servers) assert.equal(s.http_status, 400);
    assert.ok(pre.unit.n_frames > 0 && pre.unit.frames_as === 'file');
    const st = await readStatus(layout);
    assert.equal(st?.state, 'failed');
    assert.equal(st?.stopReason?.rule, 'preflight');
    assert.match(formatStatus(st!, false), /stopped on its own: pre-flight failed/);
  });

  it('servers that refuse every file:// URL after the pre-flight: fail-fast stops, keeps every row, logs only what was sent', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const inspect = path.join(sample.root, 'inspect.jsonl');
    const res = await sweep(sample.root, { FPSWEEP_STANDIN_FAULTS: 'refuseFileUrls=1,faultsFrom=2', FPSWEEP_STANDIN_INSPECT: inspect });
    assert.equal(res.exitCode, 1, res.summary);
    assert.ok(['same_in_a_row', 'first_requests'].includes(res.stopReason!.rule), res.stopReason!.rule);
    assert.match(res.stopReason!.message, /must be a subpath of `--allowed-local-media-path`/);
    assert.match(res.stopReason!.meaning, /symlink/);
    assert.match(res.stopReason!.action, /realpath/);
    // The decision came after at most floor(40/2)+1 failures; what was in flight then ends too.
    const failures = await lines(layout.failuresLog);
    const refused = failures.filter((f) => f.kind === 'request');
    const bound = Math.floor(40 / 2) + 1 + SERVERS * WORKERS;
    assert.ok(refused.length >= 20 && refused.length <= bound, `${refused.length} failures logged (bound ${bound})`);
    assert.ok(refused.length < todo / 2, 'the plan is not written into failures.jsonl');
    const sent = (await lines(inspect)).length;
    assert.ok(sent <= SERVERS + bound, `${sent} requests sent`);
    assert.match(res.summary, /left to do/);
    const a = await readArtifacts(layout);
    assertConsistent(a, new Set(sample.plan.existing.map((e) => artifactKey(e.benchmark, e.item_id, e.condition))));
    assert.ok(res.added.NA + res.added.reuse + res.added.ok >= 0);
    const st = await readStatus(layout);
    assert.equal(st?.stopReason?.message, res.stopReason!.message);
  });

  it('servers that fail 1 request in 10: the run goes to the end, the failures logged, the pre-flight recorded', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    const res = await sweep(sample.root, { FPSWEEP_STANDIN_FAULTS: 'status400Every=10' });
    assert.equal(res.exitCode, 0, res.summary);
    assert.equal(res.state, 'done');
    assert.equal(res.stopReason, null);
    const refused = (await lines(layout.failuresLog)).filter((f) => f.kind === 'request');
    assert.ok(refused.length > 0 && refused.length <= Math.ceil(todo / 10) + SERVERS, `${refused.length} failures of ${todo}`);
    assert.doesNotMatch(res.summary, /left to do/);
    const pre = JSON.parse(await fs.readFile(path.join(layout.logsDir, 'preflight.json'), 'utf8'));
    assert.equal(pre.ok, true);
    for (const s of pre.servers) {
      assert.ok(s.prompt_tokens > 0 && ['stop', 'length'].includes(s.finish_reason));
    }
  });

  it('servers that go down one after another: the run stops with the reason, not with the plan as failures', async () => {
    const sample = await copySamplePackage();
    const layout = new PackageLayout(sample.root);
    // Each start of server 0 dies at its 4th request, of server 1 at its 10th (the restarts die too).
    const res = await sweep(sample.root, { FPSWEEP_STANDIN_FAULTS_0: 'crashAfter=3', FPSWEEP_STANDIN_FAULTS_1: 'crashAfter=9' });
    assert.equal(res.exitCode, 1, res.summary);
    assert.equal(res.stopReason?.rule, 'servers_down', res.summary);
    assert.match(res.stopReason!.meaning, /GPU memory/);
    const failures = await lines(layout.failuresLog);
    assert.ok(failures.length < todo / 2, `${failures.length} failures logged of ${todo}`);
    assert.match(res.summary, /left to do/);
    assert.equal((await readStatus(layout))?.stopReason?.rule, 'servers_down');
  });
});
