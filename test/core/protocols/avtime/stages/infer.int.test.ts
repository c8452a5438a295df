import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildTargetInputs } from '../../../../../src/core/protocols/avtime/stages/inputs';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { runInference } from '../../../../../src/core/protocols/avtime/stages/infer';
import { rawPredictionSchema } from '../../../../../src/core/protocols/avtime/stages/rawPrediction';
import { splitShards } from '../../../../../src/core/protocols/avtime/stages/shards';
import type { TargetInput } from '../../../../../src/core/protocols/avtime/stages/inputSchemas';
import { fixtureRows, tmpDir, writeBench } from './fixtures';
import { startStub, type Stub } from './httpStub';
import { planRequestFields, targetPlan } from '../../../../../src/core/serving/models/qwen3Omni/videoPlan';

// The fixture videos are not real media: every one gets the plan of a 10 s 1280x720 30 fps file with 44.1 kHz audio.
const plan = targetPlan({ width: 1280, height: 720, totalFrames: 300, fps: 30, audio: { sampleRate: 44100, samples: 441000 } }, true);
const planFor = async () => plan;

async function inputs(n: number): Promise<{ root: string; rows: TargetInput[] }> {
  const root = tmpDir('infer');
  writeBench(root, fixtureRows(root, n));
  const built = await buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), path.join(root, 'target_inputs.jsonl'));
  return { root, rows: built.rows };
}

const idOf = (body: Record<string, any>) => path.basename(new URL(body.messages[0].content[0].video_url.url).pathname, '.mp4');
const readRaw = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => rawPredictionSchema.parse(JSON.parse(l)));

describe('avtime stages: target inference (SPEC-AVTIME §3)', function () {
  this.timeout(60_000); // each bench's inputs are probed with ffprobe
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('splits the first half (rounded up) onto group 0 and the rest onto group 1; one group, one shard', () => {
    assert.deepEqual(splitShards([1, 2, 3, 4, 5], 2), [
      [1, 2, 3],
      [4, 5],
    ]);
    assert.deepEqual(splitShards([1, 2, 3, 4], 2), [
      [1, 2],
      [3, 4],
    ]);
    assert.deepEqual(splitShards([1, 2, 3], 1), [[1, 2, 3]]);
  });

  it('writes every assigned id once per shard, with the request of §3, and summaries with exact coverage', async () => {
    const { root, rows } = await inputs(5);
    for (let k = 0; k < 2; k++) stubs.push(await startStub((b) => ({ text: `From 00 to 10, ${idOf(b)}` })));
    const layout = new AvtimeRunLayout(path.join(root, 'out'), 'r1');
    const res = await runInference({
      layout,
      inputs: rows,
      prompt: 'PROMPT',
      model: 'tgt',
      endpoints: stubs.map((s) => ({ url: s.url, apiKey: 'k' })),
      audioInVideo: true,
      planFor,
      canonical: true,
      concurrency: 2,
    });
    assert.ok(res.ok, res.line);
    assert.deepEqual(
      readRaw(layout.rawPredictions(0))
        .map((r) => r.id)
        .sort(),
      ['rec_0', 'rec_1', 'rec_2'],
    );
    assert.deepEqual(
      readRaw(layout.rawPredictions(1))
        .map((r) => r.id)
        .sort(),
      ['rec_3', 'rec_4'],
    );
    const line = readRaw(layout.rawPredictions(1)).find((r) => r.id === 'rec_3')!;
    assert.equal(line.response, 'From 00 to 10, vid_003');
    assert.equal(line.video_id, 'vid_003');
    assert.equal(line.endpoint, stubs[1].url);
    assert.deepEqual(JSON.parse(fs.readFileSync(layout.shardSummary(0), 'utf8')), { expected: 3, written: 3, failed: 0, errors: [] });
    const body = stubs[0].bodies[0];
    assert.deepEqual(
      { ...body, messages: undefined },
      {
        model: 'tgt',
        messages: undefined,
        temperature: 0,
        top_p: 1,
        top_k: 20,
        repetition_penalty: 1,
        max_tokens: 8192,
        seed: 1234,
        // SPEC-AVTIME §3: the reference's frame count and size travel per request.
        mm_processor_kwargs: { use_audio_in_video: true, videos_kwargs: planRequestFields(plan).videos_kwargs },
        media_io_kwargs: { video: { num_frames: 20 } },
      },
    );
    assert.equal(body.messages[0].content[1].text, 'PROMPT');
    assert.ok(body.messages[0].content[0].video_url.url.startsWith('file:///'));
    assert.match(res.line, /shard0 3\/3 written, 0 failed; shard1 2\/2 written, 0 failed/);
  });

  it('canonical: a row error stops every shard (in-flight work cut), fails the stage, and coverage says what is missing', async () => {
    const { root, rows } = await inputs(6);
    stubs.push(await startStub((b) => (idOf(b) === 'vid_001' ? { status: 400, error: 'cannot open video' } : { text: 'From 00 to 01, x' })));
    stubs.push(await startStub(() => 'hang')); // shard 1 holds every request: only the stop can end it
    const layout = new AvtimeRunLayout(path.join(root, 'out'), 'r1');
    const res = await runInference({
      layout,
      inputs: rows,
      prompt: 'P',
      model: 'tgt',
      endpoints: stubs.map((s) => ({ url: s.url, apiKey: null })),
      audioInVideo: true,
      planFor,
      canonical: true,
      concurrency: 1,
    });
    assert.equal(res.ok, false);
    assert.equal(stubs[0].bodies.length, 2, 'nothing sent after the failing row');
    const s0 = JSON.parse(fs.readFileSync(layout.shardSummary(0), 'utf8'));
    assert.deepEqual({ ...s0, errors: s0.errors.map((e: { id: string }) => e.id) }, { expected: 3, written: 1, failed: 1, errors: ['rec_1'] });
    assert.deepEqual(JSON.parse(fs.readFileSync(layout.shardSummary(1), 'utf8')), { expected: 3, written: 0, failed: 0, errors: [] });
    assert.match(res.line, /target inference FAILED: shard0 1\/3 written, 1 failed \(coverage: 2 assigned id\(s\) missing: rec_1, rec_2\)/);
  });

  it("a video whose reference preprocessing cannot be computed is that row's error (kind request), never sent", async () => {
    const { root, rows } = await inputs(2);
    stubs.push(await startStub(() => ({ text: 'From 00 to 01, x' })));
    const layout = new AvtimeRunLayout(path.join(root, 'out'), 'r1');
    const res = await runInference({
      layout,
      inputs: rows,
      prompt: 'P',
      model: 'tgt',
      endpoints: [{ url: stubs[0].url, apiKey: null }],
      audioInVideo: true,
      planFor: async (v) => (v.endsWith('vid_001.mp4') ? Promise.reject(new Error('no video stream')) : plan),
      canonical: false,
      concurrency: 1,
    });
    assert.equal(res.ok, false);
    assert.deepEqual(res.shards[0].errors, [{ id: 'rec_1', kind: 'request', message: `reference preprocessing of ${rows[1].videos[0]}: no video stream` }]);
    assert.deepEqual(stubs[0].bodies.map(idOf), ['vid_000']);
  });

  it('canonical: an existing shard file is never resumed', async () => {
    const { root, rows } = await inputs(2);
    stubs.push(await startStub(() => ({ text: 'From 00 to 01, x' })));
    const layout = new AvtimeRunLayout(path.join(root, 'out'), 'r1');
    fs.mkdirSync(layout.shardDir(0), { recursive: true });
    fs.writeFileSync(layout.rawPredictions(0), '');
    await assert.rejects(
      runInference({
        layout,
        inputs: rows,
        prompt: 'P',
        model: 'tgt',
        endpoints: [{ url: stubs[0].url, apiKey: null }],
        audioInVideo: true,
        planFor,
        canonical: true,
        concurrency: 1,
      }),
      /exists: a canonical target shard never resumes/,
    );
    assert.equal(stubs[0].bodies.length, 0);
  });

  it('--resume --keep-going: skips ids already written, goes on past an error, and a second resume completes', async () => {
    const { root, rows } = await inputs(4);
    let fail = true;
    stubs.push(await startStub((b) => (fail && idOf(b) === 'vid_001' ? { status: 400, error: 'no' } : { text: `From 00 to 01, ${idOf(b)}` })));
    const layout = new AvtimeRunLayout(path.join(root, 'out'), 'r1');
    fs.mkdirSync(layout.shardDir(0), { recursive: true });
    const pre = {
      id: 'rec_0',
      video_id: 'vid_000',
      response: 'From 00 to 01, earlier',
      finish_reason: 'stop',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      latency_s: 0.1,
      endpoint: 'x',
      ts: 't',
    };
    fs.writeFileSync(layout.rawPredictions(0), JSON.stringify(pre) + '\n' + '{"id": "rec_3", "torn');
    const opts = {
      layout,
      inputs: rows,
      prompt: 'P',
      model: 'tgt',
      endpoints: [{ url: stubs[0].url, apiKey: null }],
      audioInVideo: true,
      planFor,
      canonical: false,
      concurrency: 1,
    };
    const first = await runInference(opts);
    assert.equal(first.ok, false);
    assert.deepEqual(stubs[0].bodies.map(idOf), ['vid_001', 'vid_002', 'vid_003'], 'rec_0 skipped, rec_2 and rec_3 asked after rec_1 failed');
    assert.ok(fs.existsSync(layout.rawPredictions(0) + '.torn'), 'the torn tail is set aside');
    fail = false;
    const second = await runInference(opts);
    assert.ok(second.ok, second.line);
    assert.deepEqual(stubs[0].bodies.map(idOf), ['vid_001', 'vid_002', 'vid_003', 'vid_001']);
    assert.deepEqual(
      readRaw(layout.rawPredictions(0)).map((r) => r.id),
      ['rec_0', 'rec_2', 'rec_3', 'rec_1'],
    );
  });
});
