import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { avtimeStatusSchema } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { SCORE_KEYS } from '../../../../../src/core/protocols/avtime/constants';
import { listFiles, tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub, TARGET_ANSWERS, videoOf, type JudgeFault } from './benchFixture';
import { startStub, type Stub } from './httpStub';

const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 } };
const RECOMPUTE = path.join(__dirname, 'recompute.py');
const BOOTSTRAP_PY = path.join(__dirname, '..', '..', '..', '..', 'fixtures', 'avtime', 'bootstrap.py');

const SEED_TREE = ['e2e_trace.jsonl', 'e2t_trace.jsonl', 'run_config.json', 'summary.json', 'summary_ci.json', 't2e_trace.jsonl']
  .map((f) => `eval/r1/${f}`)
  .concat([
    'inference/shard0/raw_predictions.jsonl',
    'inference/shard0/summary.json',
    'inference/shard1/raw_predictions.jsonl',
    'inference/shard1/summary.json',
    'prediction_failures.jsonl',
    'prediction_report.json',
    'predictions.jsonl',
    'semantic_failures.jsonl',
    'semantic_report.json',
    'semantic_requests.jsonl',
    'semantic_responses.jsonl',
    'target_inputs_report.json',
  ])
  .sort();

describe('avtime stages: a whole run (SPEC-AVTIME §8)', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  async function servers(fault?: JudgeFault) {
    const t0 = await targetStub();
    const t1 = await targetStub();
    const j = await judgeStub(fault);
    stubs.push(t0, t1, j);
    return { targetEndpoints: [t0.url, t1.url], judgeEndpoint: j.url, j };
  }

  it("writes the seed's output tree, six scores, and an independent recomputation agrees exactly", async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const s = await servers();
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks);
    assert.equal(res.exitCode, 0, res.line);
    assert.match(
      res.line,
      /^scores: T2E-A [\d.]+ T2E-V [\d.]+ E2T-A [\d.]+ E2T-V [\d.]+ E2E-A [\d.]+ E2E-V [\d.]+ over 14 queries \(\d+ judged, 1 prediction failures\)/,
    );
    const files = listFiles(out).filter((f) => !f.startsWith('.fpsweep'));
    assert.deepEqual(files, SEED_TREE);
    const layout = new AvtimeRunLayout(out, 'r1');
    const summary = JSON.parse(fs.readFileSync(layout.summary, 'utf8'));
    assert.deepEqual(Object.keys(summary).sort(), [...SCORE_KEYS, 'counts', 'prediction_failures'].sort());
    const config = JSON.parse(fs.readFileSync(layout.runConfig, 'utf8'));
    assert.equal(config.run_id, 'r1');
    assert.equal(config.canonical, true);
    assert.equal(config.outputs['predictions.jsonl'].length, 64);
    assert.deepEqual(config.non_default_options.targetEndpoints, s.targetEndpoints);
    assert.equal(config.inputs.manifest.sha256.length, 64);
    assert.equal(config.inputs.target_inputs.sha256.length, 64);
    assert.equal(config.prompts.target.sha256.length, 64);
    assert.deepEqual(config.decoding.target, {
      temperature: 0,
      top_p: 1,
      top_k: 20,
      repetition_penalty: 1,
      max_tokens: 8192,
      seed: 1234,
      mm_processor_kwargs: { use_audio_in_video: true },
    });
    assert.deepEqual(config.decoding.judge.max_tokens, { pass1: 512, retry: 4096 });
    assert.equal(typeof config.topology.host_gpus.count, 'number');
    assert.deepEqual(config.topology.target.endpoints, s.targetEndpoints);
    assert.ok(!('eval/r1/run_config.json' in config.outputs) && 'eval/r1/summary.json' in config.outputs);
    const status = avtimeStatusSchema.parse(JSON.parse(fs.readFileSync(layout.statusFile, 'utf8')));
    assert.equal(status.state, 'done');
    assert.deepEqual(
      status.shards.map((x) => [x.expected, x.written, x.failed]),
      [
        [2, 2, 0],
        [1, 1, 0],
      ],
    );
    const py = execFileSync('/usr/bin/python3', [
      RECOMPUTE,
      out,
      'r1',
      path.join(root, 'target_inputs.jsonl'),
      path.join(root, 'benchmark_reference_manifest.jsonl'),
    ]).toString();
    const check = JSON.parse(py);
    assert.deepEqual(check.mismatches, []);
    assert.equal(check.predictions, 2);
    assert.equal(check.queries, 14);

    // summary_ci.json: recorded seed and replicates, estimates = summary.json, intervals = bootstrap.py over the traces.
    const ci = JSON.parse(fs.readFileSync(layout.summaryCi, 'utf8'));
    assert.deepEqual([ci.seed, ci.replicates, ci.level, ci.videos], [1234, 2000, 0.95, 3]);
    const traces = ['t2e', 'e2t', 'e2e'].flatMap((d) =>
      fs
        .readFileSync(layout.trace(d as 't2e'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    const queries = traces.map((t) => ({ video_id: t.video_id, key: `${t.direction.toUpperCase()}-${t.axis}`, score: t.score }));
    const input = JSON.stringify([{ queries, seed: ci.seed, replicates: ci.replicates, level: ci.level }]);
    const [want] = JSON.parse(execFileSync('/usr/bin/python3', [BOOTSTRAP_PY], { input }).toString());
    for (const k of SCORE_KEYS) {
      assert.ok(Math.abs(ci.scores[k].estimate - summary[k]) < 1e-12, k);
      for (const f of ['estimate', 'lo', 'hi']) assert.ok(Math.abs(ci.scores[k][f] - want[k][f]) < 1e-12, `${k}.${f}`);
    }
    for (const d of ['t2e', 'e2t', 'e2e'])
      for (const f of ['estimate', 'lo', 'hi']) assert.ok(Math.abs(ci.audio_minus_visual[d][f] - want[`${d}:A-V`][f]) < 1e-12, `${d}.${f}`);
  });

  it('refuses a second run into the same output root (exit 2) and writes nothing', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const s = await servers();
    assert.equal((await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks)).exitCode, 0);
    const before = listFiles(out).map((f) => [f, fs.statSync(path.join(out, f)).mtimeMs]);
    const asked = s.j.bodies.length;
    const again = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks);
    assert.equal(again.exitCode, 2);
    assert.match(again.line, /already exists and is not empty: a run's artifacts are immutable/);
    assert.deepEqual(
      listFiles(out).map((f) => [f, fs.statSync(path.join(out, f)).mtimeMs]),
      before,
    );
    assert.equal(s.j.bodies.length, asked);
  });

  it('bad input (a query about an unknown video) is exit 2 with file:line, and no output root is made', async () => {
    const { root } = makeBench();
    fs.appendFileSync(
      path.join(root, 'benchmark_reference_manifest.jsonl'),
      JSON.stringify({ query_id: 'q', video_id: 'nope', axis: 'A', direction: 't2e', time_ms: 1, reference_captions: ['x'] }) + '\n',
    );
    const out = path.join(tmpDir('out'), 'r1');
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...(await servers()) }, hooks);
    assert.equal(res.exitCode, 2);
    assert.match(res.line, /benchmark_reference_manifest\.jsonl:15: video_id 'nope' is not a target input/);
    assert.equal(fs.existsSync(out), false);
    assert.equal(fs.existsSync(path.join(root, 'target_inputs.jsonl')), false, 'the target inputs are not written either');
  });

  it('--resume of a root that holds no run, and a bad existing target_inputs.jsonl: exit 2, nothing written', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'notes.txt'), 'mine');
    const s = await servers();
    const resumed = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, ...s }, hooks);
    assert.equal(resumed.exitCode, 2);
    assert.match(resumed.line, /holds no AVTime run to continue/);
    assert.deepEqual(listFiles(out), ['notes.txt']);
    fs.writeFileSync(path.join(root, 'target_inputs.jsonl'), '{"id": "rec_0", "videos": ["relative.mp4"], "messages": [], "metadata": {}}\n');
    const out2 = path.join(tmpDir('out'), 'r2');
    const bad = await runAvtime('run', { benchRoot: root, outputRoot: out2, runId: 'r2', ...s }, hooks);
    assert.equal(bad.exitCode, 2);
    assert.match(bad.line, /target_inputs\.jsonl:1: /);
    assert.equal(fs.existsSync(out2), false);
    assert.equal(s.j.bodies.length, 0);
  });

  it('a judge that keeps answering invalid JSON fails the run after the retry pass (exit 1), with no scores', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const s = await servers((b) => (String(b.response_format.json_schema.name).endsWith('semantic_selector') ? { text: '{"indices": [0' } : null));
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks);
    assert.equal(res.exitCode, 1, res.line);
    assert.match(
      res.line,
      /judge FAILED: 10 requests, 0 reused; pass 1 \(512 tokens\) 6\/10 valid, 4 failed; pass 2 \(4096 tokens\) 0\/4 valid, 4 failed; 4 left/,
    );
    const layout = new AvtimeRunLayout(out, 'r1');
    assert.equal(fs.existsSync(layout.evalDir), false, 'no scores');
    const maxTokens = s.j.bodies.map((b) => b.max_tokens);
    assert.deepEqual([maxTokens.filter((m) => m === 512).length, maxTokens.filter((m) => m === 4096).length], [10, 4]);
    const failures = fs
      .readFileSync(layout.semanticFailures, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(failures.map((f) => [f.pass, f.reason]).sort(), [...Array(4).fill([1, 'not_json']), ...Array(4).fill([2, 'not_json'])].sort());
    const report = JSON.parse(fs.readFileSync(layout.semanticReport, 'utf8'));
    assert.equal(report.complete, false);
  });

  it('invalid JSON on the first pass only: the retry pass at 4096 tokens completes the run', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const s = await servers((b) =>
      b.max_tokens === 512 && String(b.response_format.json_schema.name).endsWith('pair_selector') ? { text: 'not json' } : null,
    );
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks);
    assert.equal(res.exitCode, 0, res.line);
    const report = JSON.parse(fs.readFileSync(new AvtimeRunLayout(out, 'r1').semanticReport, 'utf8'));
    assert.deepEqual(report.passes, [
      { pass: 1, max_tokens: 512, asked: 10, valid: 6, failed: 4 },
      { pass: 2, max_tokens: 4096, asked: 4, valid: 4, failed: 0 },
    ]);
  });

  it('a crash mid-judge: --resume re-asks only the queries without a matching stored response', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const s = await servers();
    assert.equal((await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks)).exitCode, 0);
    const layout = new AvtimeRunLayout(out, 'r1');
    const full = fs.readFileSync(layout.semanticResponses, 'utf8').trim().split('\n');
    // What a crash leaves: the first 4 responses, a torn fifth line, no report and no scores.
    const kept = full.slice(0, 4);
    const tampered = JSON.parse(full[4]);
    tampered.prompt_sha256 = '0'.repeat(64); // a stored response under another prompt is never reused
    fs.writeFileSync(layout.semanticResponses, kept.join('\n') + '\n' + JSON.stringify(tampered) + '\n' + full[5].slice(0, 20));
    fs.rmSync(layout.semanticReport);
    fs.rmSync(path.join(out, 'eval'), { recursive: true });
    const keptIds = new Set(kept.map((l) => JSON.parse(l).query_id));
    const before = s.j.bodies.length;
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, ...s }, hooks);
    assert.equal(res.exitCode, 0, res.line);
    const reasked = s.j.bodies.slice(before);
    assert.equal(reasked.length, full.length - 4);
    const reaskedIds = new Set(reasked.map((b) => b.messages[0].content as string));
    assert.equal(reaskedIds.size, full.length - 4);
    const report = JSON.parse(fs.readFileSync(layout.semanticReport, 'utf8'));
    assert.equal(report.reused, 4);
    assert.ok(![...keptIds].some((id) => report.failed_query_ids.includes(id)));
    assert.ok(fs.existsSync(layout.semanticResponses + '.torn'));
    const py = execFileSync('/usr/bin/python3', [
      RECOMPUTE,
      out,
      'r1',
      path.join(root, 'target_inputs.jsonl'),
      path.join(root, 'benchmark_reference_manifest.jsonl'),
    ]).toString();
    assert.deepEqual(JSON.parse(py).mismatches, []);
  });

  it('a canonical run whose target inference stopped cannot be resumed into (exit 2); a new run id can', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const t0 = await targetStub();
    // Passes the pre-flight (its first input, with return_token_ids), then refuses that input in the shard.
    const bad = await startStub((b) => (b.return_token_ids ? { text: 'From 00 to 01, x' } : { status: 400, error: 'cannot open video' }));
    const j = await judgeStub();
    stubs.push(t0, bad, j);
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', targetEndpoints: [t0.url, bad.url], judgeEndpoint: j.url }, hooks);
    assert.equal(res.exitCode, 1);
    assert.match(res.line, /target inference FAILED: .*shard1 0\/1 written, 1 failed.*nothing later runs/);
    assert.equal(fs.existsSync(path.join(out, 'predictions.jsonl')), false);
    assert.equal(j.bodies.length, 0, 'the judge is never asked');
    const again = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, targetEndpoints: [t0.url, t0.url], judgeEndpoint: j.url },
      hooks,
    );
    assert.equal(again.exitCode, 2);
    assert.match(again.line, /canonical shards never resume — start a new run/);
    const fresh = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: path.join(path.dirname(out), 'r2'), runId: 'r2', targetEndpoints: [t0.url, t0.url], judgeEndpoint: j.url },
      hooks,
    );
    assert.equal(fresh.exitCode, 0, fresh.line);
  });

  it('--keep-going (non-canonical): --resume completes the shard, and run_config says non-canonical', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    let fail = true;
    const t = await startStub((b) => (fail && videoOf(b) === 'vid_001' ? { status: 400, error: 'flaky' } : { text: TARGET_ANSWERS[videoOf(b)] }));
    const j = await judgeStub();
    stubs.push(t, j);
    const opts = { benchRoot: root, outputRoot: out, runId: 'r1', targetEndpoints: [t.url, t.url], judgeEndpoint: j.url };
    const first = await runAvtime('run', { ...opts, keepGoing: true }, hooks);
    assert.equal(first.exitCode, 1);
    fail = false;
    const second = await runAvtime('run', { ...opts, resume: true, keepGoing: true }, hooks);
    assert.equal(second.exitCode, 0, second.line);
    assert.match(second.line, /^NON-CANONICAL scores:/);
    const config = JSON.parse(fs.readFileSync(new AvtimeRunLayout(out, 'r1').runConfig, 'utf8'));
    assert.equal(config.canonical, false);
    assert.equal(config.target_resume, true);
  });
});
