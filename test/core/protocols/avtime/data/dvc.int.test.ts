// `fpsweep avtime dvc` and the seed's form of `avtime normalize` (SPEC-AVTIME-DATA §6) against a stub target
// server on 127.0.0.1: the direct CLI's policy (resume and continue-on-error by default, exit 2 on any failed
// row, fail-closed on request), both prompt styles, the reference refusal, and the request and normalizer being
// AVTime-Bench's own (bodies and bytes compared with what the bench's stages send and write).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { buildTargetInputs, writeTargetInputs } from '../../../../../src/core/protocols/avtime/stages/inputs';
import { runInference } from '../../../../../src/core/protocols/avtime/stages/infer';
import { rawPredictionSchema } from '../../../../../src/core/protocols/avtime/stages/rawPrediction';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { runNormalize } from '../../../../../src/core/protocols/avtime/stages/normalizeStage';
import { fixtureRows, tmpDir, writeBench } from '../stages/fixtures';
import { startStub, type Stub, type StubReply } from '../stages/httpStub';
import { TARGET_ANSWERS } from '../stages/benchFixture';
import { buildStandin, FAKE_VLLM } from '../../../serving/helpers';
import { freePortRange, startStandin, withEnv, type Standin } from '../../fp/sweep/helpers';
import { runDvc } from '../../../../../src/core/protocols/avtime/data/dvc/run';

const cli = (args: string[]) => runCli(['avtime', ...args]);

/** The row a request is for: its video's name (the fixtures' vid_NNN.mp4). */
const vidOf = (body: Record<string, any>) => path.basename(new URL(body.messages[0].content[0].video_url.url).pathname, '.mp4');
const readIds = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => rawPredictionSchema.parse(JSON.parse(l)).id);

/** A bench root with n videos and its target_inputs.jsonl (AVTime-Bench's reference-free rows: dvc's input). */
async function bench(n: number): Promise<{ root: string; inputs: string }> {
  const root = tmpDir('dvc');
  writeBench(root, fixtureRows(root, n));
  const inputs = path.join(root, 'target_inputs.jsonl');
  const built = await buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), inputs);
  await writeTargetInputs(built, inputs, [path.join(root, 'target_inputs_report.json')]);
  return { root, inputs };
}

describe('fpsweep avtime dvc and the seed form of normalize (SPEC-AVTIME-DATA §6)', function () {
  this.timeout(60_000); // the videos are probed with ffprobe
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });
  async function stub(answer: (body: Record<string, any>) => StubReply): Promise<Stub> {
    const s = await startStub(answer, ['tgt']);
    stubs.push(s);
    return s;
  }
  const answerAll = (b: Record<string, any>): StubReply => ({ text: `From 00 to 10, ${vidOf(b)}` });

  it('default policy: a failed row leaves the others written and exits 2; the rerun asks only the failed row', async () => {
    const { root, inputs } = await bench(4);
    const out = path.join(root, 'dvc');
    const failing = await stub((b) => (vidOf(b) === 'vid_001' ? { status: 400, error: 'cannot open video' } : answerAll(b)));
    const args = ['dvc', '--jsonl', inputs, '--output-dir', out, '--model-name', 'tgt', '--bench-root', root];
    const first = await cli([...args, '--base-url', failing.url]);
    assert.equal(first.code, 2, first.err);
    assert.match(first.err, /dvc: 3\/4 written \(0 resumed\), 1 failed/);
    assert.deepEqual(readIds(path.join(out, 'raw_predictions.jsonl')).sort(), ['rec_0', 'rec_2', 'rec_3']);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    assert.deepEqual(
      { expected: summary.expected, written: summary.written, failed: summary.failed, ids: summary.errors.map((e: { id: string }) => e.id) },
      { expected: 4, written: 3, failed: 1, ids: ['rec_1'] },
    );
    assert.deepEqual(summary.policy, { resume: true, continue_on_error: true });
    assert.match(summary.inputs.jsonl.sha256, /^[0-9a-f]{64}$/);
    assert.equal(summary.outputs.raw_predictions.sha256.length, 64);

    const healthy = await stub(answerAll);
    const second = await cli([...args, '--base-url', healthy.url]);
    assert.equal(second.code, 0, second.err);
    assert.deepEqual(healthy.bodies.map(vidOf), ['vid_001']);
    assert.deepEqual(readIds(path.join(out, 'raw_predictions.jsonl')).sort(), ['rec_0', 'rec_1', 'rec_2', 'rec_3']);
    assert.match(second.out, /dvc: 4\/4 written \(3 resumed\), 0 failed/);
  });

  it('--no-resume --no-continue-on-error: the first failed row stops the run (exit 2); an existing output is refused', async () => {
    const { root, inputs } = await bench(4);
    const out = path.join(root, 'dvc');
    const s = await stub((b) => (vidOf(b) === 'vid_001' ? { status: 400, error: 'cannot open video' } : answerAll(b)));
    const args = ['dvc', '--jsonl', inputs, '--output-dir', out, '--model-name', 'tgt', '--bench-root', root, '--base-url', s.url];
    const closed = ['--no-resume', '--no-continue-on-error', '--batch-size', '1'];
    const r = await cli([...args, ...closed]);
    assert.equal(r.code, 2, r.err);
    // One request at a time, in input order: nothing after the failed row is sent.
    assert.deepEqual(s.bodies.map(vidOf), ['vid_000', 'vid_001']);
    assert.deepEqual(readIds(path.join(out, 'raw_predictions.jsonl')), ['rec_0']);
    assert.match(r.err, /1\/4 written \(0 resumed\), 1 failed/);
    const again = await cli([...args, ...closed]);
    assert.equal(again.code, 2);
    assert.match(again.err, /raw_predictions\.jsonl already exists and is not empty/);
    assert.equal(s.bodies.length, 2);
  });

  it("sends AVTime-Bench's target request, byte for byte, for the same rows (train style: the frozen prompt)", async () => {
    const { root, inputs } = await bench(3);
    const bench1 = await stub(answerAll);
    const rows = fs
      .readFileSync(inputs, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const prompt = fs.readFileSync(path.join(root, 'prompts', 'target.txt'), 'utf8');
    const res = await runInference({
      layout: new AvtimeRunLayout(path.join(root, 'bench-out'), 'r1'),
      inputs: rows,
      prompt,
      model: 'tgt',
      endpoints: [{ url: bench1.url, apiKey: null }],
      audioInVideo: true,
      canonical: true,
      concurrency: 1,
    });
    assert.ok(res.ok, res.line);
    const direct = await stub(answerAll);
    const r = await cli([
      'dvc',
      '--jsonl',
      inputs,
      '--output-dir',
      path.join(root, 'dvc'),
      '--model-name',
      'tgt',
      '--bench-root',
      root,
      '--base-url',
      direct.url,
    ]);
    assert.equal(r.code, 0, r.err);
    const bodies = (s: Stub) => s.bodies.map((b) => JSON.stringify(b)).sort();
    assert.equal(direct.bodies.length, 3);
    assert.deepEqual(bodies(direct), bodies(bench1));
  });

  it('--prompt-style jsonl sends the row’s user text; a row without one is refused with file:line, nothing sent or written', async () => {
    const { root, inputs } = await bench(2);
    const rows = fs
      .readFileSync(inputs, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    rows[0].messages[1].content = '<video>\nList the events of this clip.';
    rows[1].messages[1].content = [
      { type: 'video', video: rows[1].videos[0] },
      { type: 'text', text: 'Events, please.' },
    ];
    const own = path.join(root, 'own.jsonl');
    fs.writeFileSync(own, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const s = await stub(answerAll);
    const out = path.join(root, 'dvc');
    const r = await cli(['dvc', '--jsonl', own, '--output-dir', out, '--model-name', 'tgt', '--prompt-style', 'jsonl', '--base-url', s.url]);
    assert.equal(r.code, 0, r.err);
    const texts = Object.fromEntries(s.bodies.map((b) => [vidOf(b), b.messages[0].content[1].text]));
    assert.deepEqual(texts, { vid_000: 'List the events of this clip.', vid_001: 'Events, please.' });

    rows[1].messages[1].content = '<video>';
    fs.writeFileSync(own, rows.map((r) => JSON.stringify(r) + '\n').join(''));
    const out2 = path.join(root, 'dvc2');
    const bad = await cli(['dvc', '--jsonl', own, '--output-dir', out2, '--model-name', 'tgt', '--prompt-style', 'jsonl', '--base-url', s.url]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, new RegExp(`${own.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: messages: --prompt-style jsonl needs a user message with text`));
    assert.equal(s.bodies.length, 2);
    assert.equal(fs.existsSync(out2), false);
  });

  it('refuses rows that carry an assistant message (a reference), naming file:line; nothing sent or written', async () => {
    const { root } = await bench(2);
    const s = await stub(answerAll);
    const test = path.join(root, 'test.jsonl'); // the bench's test rows still carry their references
    const out = path.join(root, 'dvc');
    const r = await cli(['dvc', '--jsonl', test, '--output-dir', out, '--model-name', 'tgt', '--bench-root', root, '--base-url', s.url]);
    assert.equal(r.code, 2);
    assert.match(r.err, /test\.jsonl:1: messages: an assistant message \(a reference\) must not reach inference/);
    assert.match(r.err, /test\.jsonl:2: messages: an assistant message/);
    assert.equal(s.bodies.length, 0);
    assert.equal(fs.existsSync(out), false);
  });

  it("normalize in the seed's form writes what AVTime-Bench's normalize stage writes for the same answers", async () => {
    const { root, inputs } = await bench(3);
    const s = await stub((b) => ({ text: TARGET_ANSWERS[vidOf(b)] }));
    const out = path.join(root, 'dvc');
    const d = await cli(['dvc', '--jsonl', inputs, '--output-dir', out, '--model-name', 'tgt', '--bench-root', root, '--base-url', s.url]);
    assert.equal(d.code, 0, d.err);
    const raw = path.join(out, 'raw_predictions.jsonl');
    const seedArgs = (dir: string, protocol = 'longvale_train_dvc_v1') => [
      'normalize',
      '--target-inputs',
      inputs,
      '--raw',
      raw,
      '--output',
      path.join(dir, 'predictions.jsonl'),
      '--failures',
      path.join(dir, 'prediction_failures.jsonl'),
      '--report',
      path.join(dir, 'prediction_report.json'),
      '--model-id',
      'avtime-model',
      '--protocol',
      protocol,
      '--decoding-json',
      '{"temperature":0,"top_p":1,"top_k":20,"max_tokens":8192}',
    ];
    const dir = path.join(root, 'norm');
    const n = await cli(seedArgs(dir));
    assert.equal(n.code, 0, n.err);
    assert.match(n.out, /normalized 3 answers: 2 predictions .* 1 prediction failures/);

    // The bench's stage over the same raw lines (as shard 0 of a run).
    const layout = new AvtimeRunLayout(path.join(root, 'bench-out'), 'r1');
    fs.mkdirSync(layout.shardDir(0), { recursive: true });
    fs.copyFileSync(raw, layout.rawPredictions(0));
    const rows = fs
      .readFileSync(inputs, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    await runNormalize({ layout, inputs: rows, shards: 1, modelId: 'avtime-model', audioInVideo: true });
    const read = (f: string) => fs.readFileSync(f, 'utf8');
    // The bench writes in target-input order whatever order the answers came in; so does the seed's form.
    assert.equal(read(path.join(dir, 'predictions.jsonl')), read(layout.predictions));
    assert.equal(read(path.join(dir, 'prediction_failures.jsonl')), read(layout.predictionFailures));
    const report = JSON.parse(read(path.join(dir, 'prediction_report.json')));
    const benchReport = JSON.parse(read(layout.predictionReport));
    assert.equal(report.protocol, 'longvale_train_dvc_v1');
    assert.deepEqual(report.merge, benchReport.merge);
    assert.deepEqual(report.counts, benchReport.counts);
    assert.deepEqual(report.outputs, benchReport.outputs);
    assert.deepEqual(report.decoding, { temperature: 0, top_p: 1, top_k: 20, max_tokens: 8192 });
    assert.match(report.inputs.raw.sha256, /^[0-9a-f]{64}$/);

    const again = await cli(seedArgs(dir));
    assert.equal(again.code, 2);
    assert.match(again.err, /--output .*predictions\.jsonl already exists and is not empty/);
    const wrong = await cli(seedArgs(path.join(root, 'norm2'), 'other_v1'));
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /--protocol must be one of longvale_train_dvc_v1, got 'other_v1'/);
    assert.equal(fs.existsSync(path.join(root, 'norm2')), false);
  });
});

describe('fpsweep avtime dvc --model-path: the target launched as AVTime-Bench launches it (stand-in vLLM)', function () {
  this.timeout(120_000);
  before(buildStandin);

  it('starts vllm serve <model-path> per GPU group with the target flags, writes every row', async () => {
    const { root, inputs } = await bench(3);
    const out = path.join(root, 'dvc');
    const port = await freePortRange(1);
    const env = { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0', FPSWEEP_STANDIN_TARGET: undefined, FPSWEEP_STANDIN_ROLE: undefined, VLLM_BIN: FAKE_VLLM };
    const model = 'Qwen/Qwen3-Omni-30B-A3B-Instruct';
    const r = await withEnv(env, () =>
      cli([
        'dvc',
        '--jsonl',
        inputs,
        '--output-dir',
        out,
        '--model-name',
        'avtime-model',
        '--bench-root',
        root,
        '--model-path',
        model,
        '--gpus',
        '0',
        '--tp',
        '1',
        '--base-port',
        String(port),
      ]),
    );
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readIds(path.join(out, 'raw_predictions.jsonl')).sort(), ['rec_0', 'rec_1', 'rec_2']);
    const launch = fs.readFileSync(path.join(out, '.fpsweep', 'logs', 'launch_params.txt'), 'utf8');
    assert.match(
      launch,
      new RegExp(`CUDA_VISIBLE_DEVICES=0 .*serve ${model.replace('/', '\\/')} --tensor-parallel-size 1 --max-model-len 65536 --allowed-local-media-path /`),
    );
    assert.match(launch, /--mm-processor-cache-gb 0/);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    assert.equal(summary.model_path, model);
    assert.equal(summary.model_name, 'avtime-model');
  });
});

describe('fpsweep avtime dvc --base-url: its only server dies (the unreachable rule, --fail-down)', function () {
  this.timeout(120_000);
  let standins: Standin[] = [];
  before(buildStandin);
  afterEach(async () => {
    await Promise.all(standins.map((s) => s.stop()));
    standins = [];
  });
  async function target(faults: Record<string, string>, port?: number): Promise<Standin> {
    const env = { FPSWEEP_STANDIN_ROLE: 'target', FPSWEEP_STANDIN_LATENCY: 'a=0,b=0,shared=0', FPSWEEP_STANDIN_TARGET: '', ...faults };
    // The processor cache off, as AVTime-Bench launches the target: the fixtures' videos share one audio track (vLLM #44538).
    const s = await startStandin({ port, mediaPath: '/', env, args: ['--mm-processor-cache-gb', '0'] });
    standins.push(s);
    return s;
  }

  it('exit 1 naming its URL, its words and what to do, no row written off; the same command resumes once it is back', async () => {
    const { root, inputs } = await bench(6);
    const out = path.join(root, 'dvc');
    // The stand-in answers 2 rows, then dies at the 3rd request (exit 1): its port refuses from then on.
    const first = await target({ FPSWEEP_STANDIN_FAULTS: 'crashAfter=2' });
    const died = new Promise<void>((resolve) => first.child.once('exit', () => resolve()));
    const lines: string[] = [];
    const hooks = { log: (l: string) => void lines.push(l), clientOptions: { maxRetries: 1, baseDelayMs: 20, maxDelayMs: 50 } };
    const options = {
      jsonl: inputs,
      outputDir: out,
      modelName: 'Qwen/Qwen3-VL-8B-Instruct',
      baseUrls: [first.url],
      gpus: [[0]],
      tp: 1,
      basePort: 8011,
      promptStyle: 'train' as const,
      benchRoot: root,
      resume: true,
      continueOnError: true,
      audioInVideo: true,
      batch: 1,
      failDownS: 1,
    };
    const r = await runDvc(options, hooks);
    await died;
    const log = lines.join('\n');
    assert.equal(r.exitCode, 1, `${r.line}\n${log}`);
    assert.match(r.line, /^dvc: 2\/6 written \(0 resumed\), 0 failed; stopped on its own: the only server unreachable for 1 s \(the rule: --fail-down 1\)/);
    assert.match(r.line, new RegExp(`the server said: ECONN(REFUSED|RESET)[^;]*\\(${first.url}\\)`), 'its words and its URL');
    assert.match(r.line, new RegExp(`do: restart the server at ${first.url}: .*then run the same command again: it resumes`));
    assert.doesNotMatch(log, /failed \(server_down\)/, 'no row written off');
    assert.equal(readIds(path.join(out, 'raw_predictions.jsonl')).length, 2);

    await target({}, Number(new URL(first.url).port));
    const again = await runDvc(options, hooks);
    assert.equal(again.exitCode, 0, again.line);
    assert.match(again.line, /dvc: 6\/6 written \(2 resumed\), 0 failed/);
    assert.deepEqual(readIds(path.join(out, 'raw_predictions.jsonl')).sort(), ['rec_0', 'rec_1', 'rec_2', 'rec_3', 'rec_4', 'rec_5']);
  });
});
