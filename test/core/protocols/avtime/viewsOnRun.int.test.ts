// The progress reader and the report on the tree a real `runAvtime` writes (stub target and judge servers on
// 127.0.0.1): the readers must agree with the stages on the artifacts' true shapes, not only on hand-made ones.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readAvtimeProgress } from '../../../../src/core/protocols/avtime/progress';
import { avtimeReport, listQueries, loadAvtimeRun, queryDetail } from '../../../../src/core/protocols/avtime/report';
import { runAvtime } from '../../../../src/core/protocols/avtime/stages/run';
import { tmpDir } from './stages/fixtures';
import { runCli } from '../../../helpers/captureOutput';
import { avtimeReportSchema } from '../../../../src/extension/protocols/avtime/reportContract';
import { judgeStub, makeBench, targetStub } from './stages/benchFixture';
import type { Stub } from './stages/httpStub';

describe('AVTime progress and report on a real run', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  after(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('every stage done with the counts the run wrote; the six scores and each trace joined to its judge answer', async () => {
    const { root } = makeBench();
    const outputs = path.join(tmpDir('views'), 'outputs', 'avtime-bench');
    const out = path.join(outputs, 'r1');
    const [t0, t1, j] = [await targetStub(), await targetStub(), await judgeStub()];
    stubs.push(t0, t1, j);
    const res = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r1', targetEndpoints: [t0.url, t1.url], judgeEndpoint: j.url },
      { log: () => undefined, clientOptions: { maxRetries: 0 } },
    );
    assert.equal(res.exitCode, 0, res.line);

    const v = await readAvtimeProgress(out);
    assert.equal(v.live, false);
    assert.equal(v.state, 'done');
    assert.deepEqual(
      v.stages.map((s) => [s.name, s.state]),
      [
        ['inputs', 'done'],
        ['infer', 'done'],
        ['normalize', 'done'],
        ['judge', 'done'],
        ['score', 'done'],
      ],
    );
    assert.deepEqual(
      v.shards.map((s) => [s.state, s.expected, s.written, s.failed]),
      [
        ['done', 2, 2, 0],
        ['done', 1, 1, 0],
      ],
    );
    assert.deepEqual(
      v.stages.find((s) => s.name === 'normalize'),
      { name: 'normalize', state: 'done', done: 2, todo: 0, failed: 1 },
    );
    const report = JSON.parse(fs.readFileSync(path.join(out, 'semantic_report.json'), 'utf8')) as { requests: number };
    assert.deepEqual(
      v.passes.map((p) => [p.pass, p.maxTokens, p.state, p.requests, p.done]),
      [[1, 512, 'done', report.requests, report.requests]],
    );
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'eval', 'r1', 'summary.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(v.scores, Object.fromEntries(['T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V'].map((k) => [k, summary[k]])));
    assert.equal(v.summary, res.line);

    const run = await loadAvtimeRun(out);
    const r = avtimeReport(run);
    assert.deepEqual(r.problems, []);
    assert.equal(r.traces, 14);
    assert.equal(r.predictionFailures, 1);
    assert.ok(r.identity.some((f) => f.label === 'commit'));
    // The report panel's seam: `fpsweep report --package <output root> --json` prints this run type's report model.
    const cli = await runCli(['report', '--package', out, '--json']);
    assert.equal(cli.code, 0, cli.err);
    // …and the extension's check of that JSON (its boundary) takes it as it is.
    const printed = avtimeReportSchema.parse(JSON.parse(cli.out));
    assert.ok(Date.parse(printed.generatedAt) >= Date.parse(r.generatedAt));
    assert.deepEqual({ ...printed, generatedAt: '' }, JSON.parse(JSON.stringify({ ...r, generatedAt: '' })));
    // Every judged trace finds the answer that counted, with the kind its direction asks for.
    const kinds = { t2e: 't2e_scalar', e2t: 'semantic_selector', e2e: 'semantic_pair_selector' } as const;
    for (const q of listQueries(run, {}, 1000).shown) {
      const d = queryDetail(run, q.query_id);
      assert.equal(d.judgeMissing, false, q.query_id);
      if (d.judge) assert.equal(d.judge.request_type, kinds[q.direction], q.query_id);
      if (q.status === 'scored') assert.ok(d.judge, `${q.query_id} is scored without a judge answer`);
    }
  });
});
