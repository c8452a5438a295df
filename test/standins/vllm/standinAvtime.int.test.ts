// The stand-in as AVTime's two models, over HTTP: the target (video_url under the allowed path,
// use_audio_in_video, LongVALE lines) and the judge (strict json_schema answers, fault knobs),
// plus the pure answer rules behind them (role by name, knob shares, the near-duplicate pairs).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { standinRole, TargetKnobsSchema } from '../../../src/standins/vllm/avtime/knobs';
import { targetText } from '../../../src/standins/vllm/avtime/target';
import { buildStandin, FAKE_VLLM, startStandin, tmpDir, type RunningStandin } from '../../core/serving/helpers';
import { probeMedia } from '../../../src/core/serving/models/qwen3Omni/mediaFacts';
import { audioTokens, processorFrameSize, resampledLength, videoTokens } from '../../../src/core/serving/models/qwen3Omni/counts';
import { JUDGE_KINDS, JUDGE_SCHEMAS, type JudgeKind } from '../../../src/core/protocols/avtime/judge/schemas';

const TARGET = 'avtime-model';
const JUDGE = 'Qwen3.6-27B-avtime-judge-v1';
const EVENT = /^From ([0-9]{2}) to ([0-9]{2}), (.+)$/;

/** Event lines by SPEC-AVTIME §4 (start ≤ end ≤ 99); the other non-empty lines are prose. */
function splitLines(text: string): { events: Array<{ start: number; end: number; caption: string }>; prose: string[] } {
  const events: Array<{ start: number; end: number; caption: string }> = [];
  const prose: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = EVENT.exec(line);
    if (m && Number(m[1]) <= Number(m[2])) events.push({ start: Number(m[1]), end: Number(m[2]), caption: m[3] });
    else if (line) prose.push(line);
  }
  return { events, prose };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

function targetBody(fileUrl: string, prompt = 'List the events.', useAudio: boolean | null = true) {
  return {
    model: TARGET,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'video_url', video_url: { url: fileUrl } },
          { type: 'text', text: prompt },
        ],
      },
    ],
    temperature: 0,
    top_p: 1,
    top_k: 20,
    repetition_penalty: 1,
    max_tokens: 8192,
    seed: 1234,
    ...(useAudio === null ? {} : { mm_processor_kwargs: { use_audio_in_video: useAudio } }),
  };
}

async function ffmpeg(args: string[]): Promise<void> {
  const { execa } = await import('execa');
  await execa('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

describe('stand-in vLLM as the AVTime target', function () {
  this.timeout(60_000);
  let s: RunningStandin;
  let media: string;
  let withAudio: string;
  let silent: string;

  before(async () => {
    media = tmpDir('avmedia');
    withAudio = path.join(media, 'tone.mp4');
    silent = path.join(media, 'silent.mp4');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'color=c=red:s=64x48:d=2',
      '-f',
      'lavfi',
      '-i',
      'sine=f=440:d=2',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-c:a',
      'aac',
      '-shortest',
      withAudio,
    ]);
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=64x48:d=2', '-c:v', 'libx264', '-preset', 'ultrafast', silent]);
    fs.writeFileSync(path.join(media, 'fake.mp4'), 'not a video at all');
    s = await startStandin(['--served-model-name', TARGET, '--tensor-parallel-size', '4', '--allowed-local-media-path', media], {
      FPSWEEP_STANDIN_LATENCY: 'a=0,b=0',
    });
  });
  after(async () => {
    await s?.stop();
  });

  it('answers LongVALE lines, the same for the same video and prompt, different for another prompt', async () => {
    const url = pathToFileURL(withAudio).href;
    const a = await post(s.url, targetBody(url));
    const b = await post(s.url, targetBody(url));
    const c = await post(s.url, targetBody(url, 'List the events, please.'));
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.equal(a.json.choices[0].message.content, b.json.choices[0].message.content);
    assert.notEqual(a.json.choices[0].message.content, c.json.choices[0].message.content);
    assert.equal(a.json.choices[0].finish_reason, 'stop');
    assert.equal(a.json.model, TARGET);
    const u = a.json.usage;
    // No plan fields: the loader's 32 frames (or all, if fewer) at the processor's size, the track's audio tokens,
    // then the text and the template.
    const f = await probeMedia(withAudio);
    const size = processorFrameSize(f.height, f.width);
    const media = videoTokens(Math.min(32, f.totalFrames), size.height, size.width) + audioTokens(resampledLength(f.audio!.samples, f.audio!.sampleRate));
    assert.ok(u.prompt_tokens > media && u.prompt_tokens < media + 60, JSON.stringify(u));
    assert.ok(u.completion_tokens > 0 && u.total_tokens === u.prompt_tokens + u.completion_tokens);
  });

  it('takes videos only inside --allowed-local-media-path, existing, and real videos', async () => {
    const outsideDir = tmpDir('avoutside');
    const outside = path.join(outsideDir, 'tone.mp4');
    fs.copyFileSync(withAudio, outside);
    const escape = pathToFileURL(path.join(media, '..', path.basename(outsideDir), 'tone.mp4')).href;
    for (const url of [pathToFileURL(outside).href, escape]) {
      const r = await post(s.url, targetBody(url));
      assert.equal(r.status, 400);
      assert.match(r.json.error.message, /must be a subpath of `--allowed-local-media-path`/);
    }
    const missing = await post(s.url, targetBody(pathToFileURL(path.join(media, 'none.mp4')).href));
    assert.equal(missing.status, 400);
    assert.match(missing.json.error.message, /No such file or directory/);
    const fake = await post(s.url, targetBody(pathToFileURL(path.join(media, 'fake.mp4')).href));
    assert.equal(fake.status, 400);
    assert.match(fake.json.error.message, /Could not open video stream/);
    const http = await post(s.url, targetBody('http://example.com/v.mp4'));
    assert.equal(http.status, 400);
  });

  it('refuses use_audio_in_video for a video without an audio stream, and takes it without the flag', async () => {
    const url = pathToFileURL(silent).href;
    const on = await post(s.url, targetBody(url, 'List the events.', true));
    assert.equal(on.status, 400);
    assert.match(on.json.error.message, /use_audio_in_video is true but .*silent\.mp4 has no audio stream/);
    assert.equal((await post(s.url, targetBody(url, 'List the events.', false))).status, 200);
    assert.equal((await post(s.url, targetBody(url, 'List the events.', null))).status, 200);
    const bad = await post(s.url, { ...targetBody(url), mm_processor_kwargs: { use_audio_in_video: 'yes' } });
    assert.equal(bad.status, 400);
  });

  it('answers 404 for another model name', async () => {
    const r = await post(s.url, { ...targetBody(pathToFileURL(withAudio).href), model: 'other' });
    assert.equal(r.status, 404);
  });
});

describe('the stand-in target answers (pure) and its knobs', () => {
  const keys = Array.from({ length: 400 }, (_, i) => [`/m/v${i}.mp4`, 'prompt']);

  it('puts prose, no-event answers and near-duplicate neighbours in by the knobs shares', () => {
    const knobs = TargetKnobsSchema.parse({ prose: 0.25, noEvents: 0.1, nearDup: 0.15 });
    let withProse = 0;
    let none = 0;
    let mergeable = 0;
    for (const k of keys) {
      const { events, prose } = splitLines(targetText(k, knobs));
      for (const e of events) assert.ok(e.start <= e.end && e.end <= 99);
      if (events.length === 0) none++;
      else if (prose.length > 0) withProse++;
      const sorted = [...events].sort((a, b) => a.start - b.start || a.end - b.end);
      for (let i = 0; i + 1 < sorted.length; i++) {
        const [a, b] = [sorted[i], sorted[i + 1]];
        const diff = [...a.caption].filter((ch, j) => ch !== b.caption[j]).length;
        if (a.caption.length >= 60 && a.caption.length === b.caption.length && diff === 1 && Math.abs(b.start - a.end) <= 1) mergeable++;
      }
    }
    assert.ok(none > 20 && none < 70, `no-event answers: ${none}/400`);
    assert.ok(withProse > 60 && withProse < 130, `answers with prose: ${withProse}/400`);
    assert.ok(mergeable > 50, `adjacent one-edit pairs inside the merge window: ${mergeable}`);
  });

  it('gives only valid lines with the knobs at 0, and no valid line with noEvents=1', () => {
    const clean = TargetKnobsSchema.parse({ prose: 0, noEvents: 0, nearDup: 0 });
    const broken = TargetKnobsSchema.parse({ noEvents: 1 });
    for (const k of keys.slice(0, 100)) {
      const c = splitLines(targetText(k, clean));
      assert.deepEqual(c.prose, []);
      assert.ok(c.events.length >= clean.minEvents);
      const b = splitLines(targetText(k, broken));
      assert.deepEqual(b.events, []);
      assert.ok(b.prose.length > 0);
    }
  });

  it('plays the model its served name names, unless FPSWEEP_STANDIN_ROLE says otherwise', () => {
    const role = (model: string, servedModelName = model, env: NodeJS.ProcessEnv = {}) => standinRole({ model, servedModelName }, env);
    assert.equal(role('Qwen/Qwen3-VL-8B-Instruct'), 'fp');
    assert.equal(role('/abs/Qwen3-Omni-30B-A3B-Instruct'), 'target');
    assert.equal(role('/abs/target-model', 'avtime-model'), 'target');
    assert.equal(role('Qwen/Qwen3.6-27B'), 'judge');
    assert.equal(role('/abs/Qwen3.6-27B', 'Qwen3.6-27B-avtime-judge-v1'), 'judge');
    assert.equal(role('test/model', 'test/model', { FPSWEEP_STANDIN_ROLE: 'judge' }), 'judge');
    assert.equal(role('test/model', 'test/model', { FPSWEEP_STANDIN_ROLE_2: 'target', CUDA_VISIBLE_DEVICES: '2' }), 'target');
    assert.throws(() => role('m', 'm', { FPSWEEP_STANDIN_ROLE: 'critic' }), /expected fp, target or judge/);
  });
});

// ---- judge ----

const PROMPT = [
  'Reference:',
  '- a low tone plays',
  '- the screen is red',
  'Predicted captions:',
  '0. a low tone plays softly',
  '1. the screen is blue',
  '2. the screen is red',
  '3. a high tone plays',
].join('\n');
// The schemas the AVTime judge stage sends (t2e_scalar's score is an integer enum 0..4).
const SCHEMAS = Object.fromEntries(JUDGE_KINDS.map((k) => [k, JUDGE_SCHEMAS[k].schema])) as Record<JudgeKind, unknown>;

function judgeBody(schema: unknown, maxTokens: number, prompt = PROMPT) {
  return {
    model: JUDGE,
    messages: [{ role: 'user', content: prompt }],
    temperature: 0,
    max_tokens: maxTokens,
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } },
  };
}

function content(r: { json: any }): string {
  return r.json.choices[0].message.content;
}

describe('stand-in vLLM as the AVTime judge', function () {
  this.timeout(60_000);
  const started: RunningStandin[] = [];
  const judge = async (env: Record<string, string> = {}) => {
    const s = await startStandin(['--served-model-name', JUDGE, '--max-model-len', '32768'], { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0', ...env });
    started.push(s);
    return s;
  };
  after(async () => {
    for (const s of started) if (s.proc.exitCode === null) await s.stop();
  });

  it('answers inside each schema, choosing by word overlap with the references', async () => {
    const s = await judge();
    const score = JSON.parse(content(await post(s.url, judgeBody(SCHEMAS.t2e_scalar, 512))));
    assert.deepEqual(score, { score: 4 }); // "the screen is red" is predicted word for word
    const sel = JSON.parse(content(await post(s.url, judgeBody(SCHEMAS.semantic_selector, 512))));
    assert.deepEqual(sel, { indices: [0] }); // "a high tone plays" shares only half its words
    const pair = await post(s.url, judgeBody(SCHEMAS.semantic_pair_selector, 512));
    assert.equal(pair.json.choices[0].finish_reason, 'stop');
    assert.deepEqual(JSON.parse(content(pair)), { indices_a: [0], indices_b: [2] });
    const again = await post(s.url, judgeBody(SCHEMAS.semantic_pair_selector, 512));
    assert.equal(content(again), content(pair));
    const none = JSON.parse(content(await post(s.url, judgeBody(SCHEMAS.semantic_selector, 512, '- a dog barks\n0. the screen is red'))));
    assert.deepEqual(none, { indices: [] });
  });

  it('answers plain text without response_format, and refuses a schema outside its subset', async () => {
    const s = await judge();
    const { response_format: _drop, ...plain } = judgeBody(SCHEMAS.semantic_selector, 512);
    const r = await post(s.url, plain);
    assert.equal(r.status, 200);
    assert.throws(() => JSON.parse(content(r)));
    assert.match(content(r), /0/);
    const odd = await post(s.url, judgeBody({ type: 'object', properties: { why: { type: 'string' } } }, 512));
    assert.equal(odd.status, 400);
    assert.match(odd.json.error.message, /properties\.why/);
    const video = await post(s.url, { ...plain, messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url: 'file:///x.mp4' } }] }] });
    assert.equal(video.status, 400);
  });

  it('invalidFirst=1: cut, invalid JSON at max_tokens 512 (finish "length"), whole and valid at 4096; outOfRange names index n', async () => {
    const s = await judge({ FPSWEEP_STANDIN_JUDGE: 'invalidFirst=1,outOfRange=1' });
    const first = await post(s.url, judgeBody(SCHEMAS.semantic_selector, 512));
    assert.equal(first.status, 200);
    assert.equal(first.json.choices[0].finish_reason, 'length');
    assert.equal(first.json.usage.completion_tokens, 512);
    assert.throws(() => JSON.parse(content(first)));
    const retry = await post(s.url, judgeBody(SCHEMAS.semantic_selector, 4096));
    assert.equal(retry.json.choices[0].finish_reason, 'stop');
    assert.deepEqual(JSON.parse(content(retry)), { indices: [0, 4] }); // 4 = one past the last of 4 captions
  });

  it('invalidFirst=0.5 picks about half the requests, the same ones every time', async () => {
    const s = await judge({ FPSWEEP_STANDIN_JUDGE: 'invalidFirst=0.5' });
    const cut: boolean[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await post(s.url, judgeBody(SCHEMAS.semantic_selector, 512, `${PROMPT}\n4. caption ${i}`));
      cut.push(r.json.choices[0].finish_reason === 'length');
    }
    const n = cut.filter(Boolean).length;
    assert.ok(n > 8 && n < 32, `${n}/40 cut`);
    const again = await post(s.url, judgeBody(SCHEMAS.semantic_selector, 512, `${PROMPT}\n4. caption 0`));
    assert.equal(again.json.choices[0].finish_reason === 'length', cut[0]);
  });

  it('invalidAlways=1: never JSON, on the retry pass either', async () => {
    const s = await judge({ FPSWEEP_STANDIN_JUDGE: 'invalidAlways=1' });
    for (const max of [512, 4096]) {
      const r = await post(s.url, judgeBody(SCHEMAS.t2e_scalar, max));
      assert.equal(r.status, 200);
      assert.throws(() => JSON.parse(content(r)));
    }
  });

  it('crashAfter=2: the third judge request is cut and the server exits 1', async () => {
    const s = await judge({ FPSWEEP_STANDIN_JUDGE: 'crashAfter=2' });
    for (let i = 0; i < 2; i++) assert.equal((await post(s.url, judgeBody(SCHEMAS.t2e_scalar, 512))).status, 200);
    await assert.rejects(post(s.url, judgeBody(SCHEMAS.t2e_scalar, 512)));
    const done = await s.proc;
    assert.equal(done.exitCode, 1);
    assert.match(s.output(), /EngineDeadError/);
  });

  it('exits 2 at start on a malformed AVTime knob', async () => {
    await buildStandin();
    const { execa } = await import('execa');
    const r = await execa(FAKE_VLLM, ['serve', JUDGE, '--port', '1'], { reject: false, env: { FPSWEEP_STANDIN_JUDGE: 'invalidFrist=1' } });
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /invalidFrist/);
  });
});
