// AVTime-Bench end to end through the real launcher (issue 12's "Done when"): `avtime sample` makes a bench
// root, `avtime run` starts the stand-in vLLM (bin/fake-vllm) as two target shards and then as the judge,
// exactly as `vllm serve …`, and writes the seed's output tree with the six scores. An independent
// recomputation (recompute.py, /usr/bin/python3's difflib) of every prediction and score agrees exactly; a
// second run into the root is refused (exit 2) and leaves every byte; the stand-in judge's fault knobs make
// the run fail after the retry pass (no scores), and a crash mid-judge resumes asking only what lacks a
// matching stored response. Stand-in latency 0, ports found free, each run bounded by the mocha timeout.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { makeAvtimeSample } from '../../../../src/core/protocols/avtime/sample';
import { runAvtime, type AvtimeHooks } from '../../../../src/core/protocols/avtime/stages/run';
import { AvtimeRunLayout } from '../../../../src/core/protocols/avtime/stages/layout';
import { SCORE_KEYS } from '../../../../src/core/protocols/avtime/constants';
import { buildStandin, FAKE_VLLM } from '../../serving/helpers';
import { freePortRange, withEnv } from '../fp/sweep/helpers';
import { copyBench, listFiles, tmpDir } from './stages/fixtures';
import { DEMO_GPU_LAYOUT } from '../../../helpers/avtimeArgs';

const RECOMPUTE = path.join(__dirname, 'stages', 'recompute.py');
const FAST = {
  FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0',
  FPSWEEP_STANDIN_TARGET: undefined,
  FPSWEEP_STANDIN_JUDGE: undefined,
  FPSWEEP_STANDIN_ROLE: undefined,
};
const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 }, startTimeoutMs: 60_000 };

/** The seed's canonical output tree ("Outputs and reproducibility"), SPEC-AVTIME §8. */
const seedTree = (runId: string) =>
  [
    'target_inputs_report.json',
    'inference/shard0/raw_predictions.jsonl',
    'inference/shard0/summary.json',
    'inference/shard1/raw_predictions.jsonl',
    'inference/shard1/summary.json',
    'predictions.jsonl',
    'prediction_failures.jsonl',
    'prediction_report.json',
    'semantic_requests.jsonl',
    'semantic_responses.jsonl',
    'semantic_failures.jsonl',
    'semantic_report.json',
    ...['run_config.json', 't2e_trace.jsonl', 'e2t_trace.jsonl', 'e2e_trace.jsonl', 'summary.json', 'summary_ci.json'].map((f) => `eval/${runId}/${f}`),
  ].sort();

/** Every path under dir (folders too) with its bytes' sha256 and its mtime: a refusal must change none. */
function hashTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      const st = fs.statSync(p);
      if (e.isDirectory()) {
        out.push(`${rel}/ ${st.mtimeMs}`);
        walk(p);
      } else out.push(`${rel} ${createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

const jsonl = (file: string): Record<string, any>[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

function recompute(out: string, runId: string, bench: string): { mismatches: string[]; predictions: number; queries: number } {
  const py = execFileSync('/usr/bin/python3', [
    RECOMPUTE,
    out,
    runId,
    path.join(bench, 'target_inputs.jsonl'),
    path.join(bench, 'benchmark_reference_manifest.jsonl'),
  ]).toString();
  return JSON.parse(py);
}

describe('AVTime end to end: avtime sample → avtime run on the stand-in vLLM through the launcher', function () {
  this.timeout(240_000);
  let sample: string;

  before(async () => {
    await buildStandin();
    sample = path.join(tmpDir('e2e'), 'bench');
    await makeAvtimeSample({ out: sample });
  });

  /** A fresh copy of the sample bench (runs write target_inputs.jsonl into the bench root). */
  const bench = (): string => copyBench(sample, 'e2e');

  async function options(benchRoot: string, out: string, runId: string) {
    const targetBasePort = await freePortRange(2);
    const judgeBasePort = await freePortRange(1);
    return {
      benchRoot,
      outputRoot: out,
      runId,
      vllmBin: FAKE_VLLM,
      targetModel: 'Qwen/Qwen3-Omni-30B-A3B-Instruct',
      judgeModel: 'Qwen/Qwen3.6-27B',
      targetGpus: [[0], [1]],
      targetTp: 1,
      judgeGpus: [[0]],
      judgeTp: 1,
      targetBasePort,
      judgeBasePort,
    };
  }

  it("writes the seed's output tree with the six scores; recompute.py agrees exactly; a second run is refused (exit 2) and changes nothing", async () => {
    const root = bench();
    const out = path.join(tmpDir('e2e'), 'run1');
    const res = await withEnv(FAST, async () => runAvtime('run', await options(root, out, 'run1'), hooks));
    assert.equal(res.exitCode, 0, res.line);
    assert.match(res.line, /^scores: T2E-A [\d.]+ T2E-V [\d.]+ E2T-A [\d.]+ E2T-V [\d.]+ E2E-A [\d.]+ E2E-V [\d.]+ over \d+ queries/);
    assert.deepEqual(
      listFiles(out).filter((f) => !f.startsWith('.fpsweep/')),
      seedTree('run1'),
    );
    const layout = new AvtimeRunLayout(out, 'run1');
    const summary = JSON.parse(fs.readFileSync(layout.summary, 'utf8'));
    assert.deepEqual(Object.keys(summary).sort(), [...SCORE_KEYS, 'counts', 'prediction_failures'].sort());
    for (const k of SCORE_KEYS) assert.ok(summary[k] >= 0 && summary[k] <= 1, `${k} = ${summary[k]}`);
    // Both shards served by launched stand-ins, each on its own GPU group with TP 1; the judge after them.
    const config = JSON.parse(fs.readFileSync(layout.runConfig, 'utf8'));
    assert.equal(config.canonical, true);
    const launches = [...config.topology.target.launch_lines, ...config.topology.judge.launch_lines].join('\n');
    assert.match(
      launches,
      /CUDA_VISIBLE_DEVICES=0 .*serve Qwen\/Qwen3-Omni-30B-A3B-Instruct --tensor-parallel-size 1 --max-model-len 65536 --allowed-local-media-path /,
    );
    assert.match(launches, /CUDA_VISIBLE_DEVICES=1 .*serve Qwen\/Qwen3-Omni-30B-A3B-Instruct/);
    assert.match(launches, /serve Qwen\/Qwen3\.6-27B --tensor-parallel-size 1 /);
    const shardRows = [0, 1].map((k) => jsonl(layout.rawPredictions(k)).length);
    assert.deepEqual(shardRows, [4, 3], 'the first half (rounded up) on group 0');

    const check = recompute(out, 'run1', root);
    assert.deepEqual(check.mismatches, []);
    assert.equal(check.predictions + summary.prediction_failures, 7);
    assert.equal(check.queries, jsonl(path.join(root, 'benchmark_reference_manifest.jsonl')).length);

    // A second run into the same root, through the command: refused before anything is touched.
    const before = hashTree(out);
    const benchBefore = hashTree(root);
    const o = await options(root, out, 'run1');
    const second = await withEnv({ ...FAST, VLLM_BIN: FAKE_VLLM }, () =>
      quietMain([
        'avtime',
        'run',
        '--bench-root',
        root,
        '--output-root',
        out,
        '--run-id',
        'run1',
        '--target-model',
        o.targetModel,
        '--judge-model',
        o.judgeModel,
        ...DEMO_GPU_LAYOUT,
      ]),
    );
    assert.equal(second.code, 2, second.err);
    assert.match(second.err, /already exists and is not empty: a run's artifacts are immutable/);
    assert.deepEqual(hashTree(out), before);
    assert.deepEqual(hashTree(root), benchBefore);
  });

  it('FPSWEEP_STANDIN_JUDGE invalidAlways=1: the run fails after the retry pass (exit 1), no scores written', async () => {
    const root = bench();
    const out = path.join(tmpDir('e2e'), 'bad-judge');
    const res = await withEnv({ ...FAST, FPSWEEP_STANDIN_JUDGE: 'invalidAlways=1' }, async () =>
      runAvtime('run', await options(root, out, 'bad-judge'), hooks),
    );
    assert.equal(res.exitCode, 1, res.line);
    assert.match(
      res.line,
      new RegExp(
        String.raw`^judge FAILED: (\d+) requests, 0 reused; ` +
          String.raw`pass 1 \(512 tokens\) 0\/\1 valid, \1 failed; pass 2 \(4096 tokens\) 0\/\1 valid, \1 failed; ` +
          String.raw`\1 left .*; no scores written$`,
      ),
    );
    const layout = new AvtimeRunLayout(out, 'bad-judge');
    assert.equal(fs.existsSync(layout.evalDir), false, 'no eval/<RUN_ID>/');
    assert.equal(fs.existsSync(path.join(out, 'eval')), false);
    assert.equal(fs.existsSync(layout.semanticResponses) ? jsonl(layout.semanticResponses).length : 0, 0);
    const failures = jsonl(layout.semanticFailures);
    const n = Number(/(\d+) requests/.exec(res.line)![1]);
    assert.deepEqual([failures.filter((f) => f.pass === 1).length, failures.filter((f) => f.pass === 2).length], [n, n]);
    assert.equal(JSON.parse(fs.readFileSync(layout.semanticReport, 'utf8')).complete, false);
  });

  it('FPSWEEP_STANDIN_JUDGE crashAfter=N: the judge dies mid-run (exit 1); --resume asks the new judge only what lacks a matching response', async () => {
    const root = bench();
    const out = path.join(tmpDir('e2e'), 'crash');
    // One judge request in flight at a time, so the crash lands after exactly N answers per incarnation;
    // every incarnation (the launcher restarts it) crashes again, so the run ends with requests left.
    const first = await withEnv({ ...FAST, FPSWEEP_STANDIN_JUDGE: 'crashAfter=10' }, async () =>
      runAvtime('run', { ...(await options(root, out, 'crash')), judgeBatch: 1, judgeRetryBatch: 1 }, hooks),
    );
    assert.equal(first.exitCode, 1, first.line);
    assert.match(first.line, /judge FAILED: \d+ requests, 0 reused;.*left without a valid response/);
    const layout = new AvtimeRunLayout(out, 'crash');
    assert.equal(fs.existsSync(layout.evalDir), false);
    const stored = new Set(jsonl(layout.semanticResponses).map((r) => r.query_id as string));
    assert.ok(stored.size >= 10, `the first incarnation answered 10 (${stored.size} stored)`);
    const requests = jsonl(layout.semanticRequests);
    const planned = new Set(requests.map((r) => r.query_id as string));
    assert.ok(stored.size < planned.size);
    // Two queries may share a prompt (same video, same reference): compare the prompts as a multiset.
    const promptOf = new Map(requests.map((r) => [r.query_id as string, r.body.messages[0].content as string]));

    const inspect = path.join(tmpDir('e2e'), 'judge-inspect.jsonl');
    const resumed = await withEnv({ ...FAST, FPSWEEP_STANDIN_INSPECT: inspect }, async () => {
      const o = await options(root, out, 'crash');
      return runAvtime(
        'run',
        {
          benchRoot: root,
          outputRoot: out,
          runId: 'crash',
          resume: true,
          vllmBin: FAKE_VLLM,
          judgeBasePort: o.judgeBasePort,
          targetBasePort: o.targetBasePort,
        },
        hooks,
      );
    });
    assert.equal(resumed.exitCode, 0, resumed.line);
    // Only the judge was started again (the target shards were complete): every inspect line is a judge request.
    const seen = jsonl(inspect)
      .map((r) => r.prompt_text as string)
      .sort();
    assert.equal(seen.length, planned.size - stored.size);
    assert.deepEqual(
      seen,
      [...planned]
        .filter((id) => !stored.has(id))
        .map((id) => promptOf.get(id)!)
        .sort(),
    );
    const report = JSON.parse(fs.readFileSync(layout.semanticReport, 'utf8'));
    assert.equal(report.reused, stored.size);
    assert.equal(report.complete, true);
    assert.deepEqual(recompute(out, 'crash', root).mismatches, []);
  });
});

const quietMain = runCli;
