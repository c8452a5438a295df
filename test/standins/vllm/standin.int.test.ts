// The stand-in vLLM as a black box over HTTP: auth, vLLM's error bodies, token accounting,
// max-num-seqs, metrics, the prefix cache, faults and the inspection log.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { buildPromptText } from '../../../src/core/protocols/fp/rules/prompt';
import { predictPromptTokens, qwenImageTokens } from '../../../src/core/protocols/fp/rules/qwenTokens';
import { fpChatRequest } from '../../../src/core/protocols/fp/serving/fpServing';
import { VllmClient } from '../../../src/core/serving/client';
import { parseVllmMetrics } from '../../../src/core/serving/metrics';
import { buildStandin, FAKE_VLLM, makeJpeg, readJsonl, startStandin, tmpDir, type RunningStandin } from '../../core/serving/helpers';
import { waitFor } from '../../helpers/waitFor';

const KEY = 'test-key-123';
const MODEL = 'test/model';

describe('stand-in vLLM', function () {
  this.timeout(60_000);
  let s: RunningStandin;
  let media: string;
  let inspect: string;
  let imagesDir: string;
  let client: VllmClient;

  before(async () => {
    media = tmpDir('media');
    inspect = path.join(tmpDir('inspect'), 'requests.jsonl');
    imagesDir = tmpDir('inspect-images');
    s = await startStandin(['--max-model-len', '3000', '--limit-mm-per-prompt', '{"image": 3}', '--max-num-seqs', '2', '--allowed-local-media-path', media], {
      VLLM_API_KEY: KEY,
      FPSWEEP_STANDIN_INSPECT: inspect,
      FPSWEEP_STANDIN_INSPECT_IMAGES: imagesDir,
      FPSWEEP_STANDIN_LATENCY: 'a=0.005,b=0',
    });
    client = new VllmClient({ url: s.url, apiKey: KEY }, { maxRetries: 2, baseDelayMs: 5 });
  });
  after(async () => {
    await client?.close();
    await s?.stop();
  });

  it('asks for the key on /v1 only, with the body vLLM sends', async () => {
    const noKey = new VllmClient({ url: s.url, apiKey: null });
    const wrong = new VllmClient({ url: s.url, apiKey: 'nope' });
    try {
      for (const c of [noKey, wrong]) {
        const r = await c.get('/v1/models');
        assert.equal(r.status, 401);
        assert.deepEqual(JSON.parse(r.text), { error: 'Unauthorized' });
      }
      assert.equal((await noKey.get('/health')).status, 200);
      assert.equal((await noKey.get('/metrics')).status, 200);
      const models = JSON.parse((await client.get('/v1/models')).text);
      assert.equal(models.data[0].id, MODEL);
      assert.equal(models.data[0].max_model_len, 3000);
      const bad = await wrong.chat(fpChatRequest({ model: MODEL, promptText: 'hi', images: [] }));
      assert.equal(bad.ok, false);
      assert.ok(!bad.ok && bad.kind === 'request' && bad.status === 401 && bad.attempts === 1);
    } finally {
      await noKey.close();
      await wrong.close();
    }
  });

  it('counts prompt tokens by SPEC §2.5 and records what arrived', async () => {
    const prompt = buildPromptText('What happens first?', ['a cat', 'a dog', 'a bird']);
    const frames = [await makeJpeg(398, 224, 1), await makeJpeg(224, 224, 2)];
    const before = readJsonl(inspect).length;
    const r = await client.chat(fpChatRequest({ model: MODEL, promptText: prompt, images: frames.map((jpeg) => ({ jpeg })) }));
    assert.ok(r.ok, JSON.stringify(r));
    const expected = predictPromptTokens(
      [
        { width: 398, height: 224 },
        { width: 224, height: 224 },
      ],
      prompt,
    );
    assert.equal(r.usage.prompt_tokens, expected);
    assert.equal(r.usage.total_tokens, expected + r.usage.completion_tokens);
    assert.match(r.text, /^(\(?[ABC]\)?\.?|The answer is [ABC]\.|Unclear from the frames\.)$/);
    const rec = readJsonl<{ images: Array<{ width: number; height: number; sha1: string }>; prompt_text: string; temperature: number; max_tokens: number }>(
      inspect,
    ).slice(before);
    assert.equal(rec.length, 1);
    assert.deepEqual(
      rec[0].images.map((i) => [i.width, i.height]),
      [
        [398, 224],
        [224, 224],
      ],
    );
    // The pixels that arrived can be read back, in order.
    for (const [k, img] of rec[0].images.entries()) {
      assert.deepEqual(fs.readFileSync(path.join(imagesDir, `${img.sha1}.jpg`)), frames[k]);
    }
    assert.equal(rec[0].prompt_text, prompt);
    assert.equal(rec[0].temperature, 0);
    assert.equal(rec[0].max_tokens, 128);
    // Same request, same answer: the reply depends on the request only.
    const again = await client.chat(fpChatRequest({ model: MODEL, promptText: prompt, images: frames.map((jpeg) => ({ jpeg })) }));
    assert.ok(again.ok && again.text === r.text);
  });

  it('refuses too many images with vLLM nested 400 body, not retried', async () => {
    const jpeg = await makeJpeg(64, 64, 3);
    const body = fpChatRequest({ model: MODEL, promptText: 'q', images: [1, 2, 3, 4].map(() => ({ jpeg })) });
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 400);
    const json = (await res.json()) as { error: { type: string; code: number; param: null; message: string } };
    assert.deepEqual(Object.keys(json), ['error']);
    assert.equal(json.error.type, 'BadRequestError');
    assert.equal(json.error.code, 400);
    assert.equal(json.error.param, null);
    assert.ok(json.error.message.startsWith('At most 3 image(s) may be provided in one prompt.'), json.error.message);
    const r = await client.chat(body);
    assert.ok(!r.ok && r.kind === 'request' && r.status === 400 && r.attempts === 1);
  });

  it('refuses a prompt longer than --max-model-len as a context failure, sent once', async () => {
    const big = await makeJpeg(1600, 900, 4); // 50 × 28 patches + 2 = 1402 tokens each
    const before = readJsonl(inspect).length;
    const r = await client.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [big, big, big].map((jpeg) => ({ jpeg })) }));
    assert.ok(!r.ok);
    assert.equal(r.kind, 'context');
    assert.equal(r.attempts, 1);
    assert.equal(r.status, 400);
    const tokens = predictPromptTokens(
      [0, 1, 2].map(() => ({ width: 1600, height: 900 })),
      'q',
    );
    assert.equal(qwenImageTokens(1600, 900), 1402);
    assert.match(r.message, new RegExp(`^The decoder prompt \\(length ${tokens}\\) is longer than the maximum model length of 3000\\.`));
    assert.equal(readJsonl(inspect).length - before, 1, 'a context refusal is never resent');
  });

  it('takes file:// frames only inside --allowed-local-media-path, and JPEG only', async () => {
    const inside = path.join(media, 'f.jpg');
    fs.writeFileSync(inside, await makeJpeg(320, 180, 5));
    const outsideDir = tmpDir('outside');
    const outside = path.join(outsideDir, 'f.jpg');
    fs.copyFileSync(inside, outside);
    const ok = await client.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ fileUrl: pathToFileURL(inside).href }] }));
    assert.ok(ok.ok, JSON.stringify(ok));
    const escape = pathToFileURL(path.join(media, '..', path.basename(outsideDir), 'f.jpg')).href;
    for (const url of [pathToFileURL(outside).href, escape]) {
      const bad = await client.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ fileUrl: url }] }));
      assert.ok(!bad.ok && bad.kind === 'request' && bad.status === 400);
      assert.match(bad.message, /must be a subpath of `--allowed-local-media-path`/);
    }
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: 'red' } })
      .png()
      .toBuffer();
    const notJpeg = await client.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ jpeg: png }] }));
    assert.ok(!notJpeg.ok && notJpeg.status === 400 && /JPEG/.test(notJpeg.message));
    const garbage = await client.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ jpeg: Buffer.from('not an image') }] }));
    assert.ok(!garbage.ok && garbage.status === 400 && /cannot identify image file/.test(garbage.message));
  });

  it('answers 404 for another model name, like vLLM', async () => {
    const r = await client.chat(fpChatRequest({ model: 'other/model', promptText: 'q', images: [] }));
    assert.ok(!r.ok && r.status === 404 && r.kind === 'request');
    assert.equal(r.message, 'The model `other/model` does not exist.');
  });

  it('exits like argparse on an unknown flag', async () => {
    await buildStandin();
    const { execa } = await import('execa');
    const r = await execa(FAKE_VLLM, ['serve', MODEL, '--port', '1', '--max-model-lenn', '5'], { reject: false });
    assert.equal(r.exitCode, 2);
    assert.match(String(r.stderr), /vllm serve: error: unrecognized arguments: --max-model-lenn 5/);
  });
});

describe('stand-in vLLM scheduling, cache and faults', function () {
  this.timeout(60_000);

  it('runs at most --max-num-seqs at once and shows the rest waiting in /metrics', async () => {
    const s = await startStandin(['--max-num-seqs', '2', '--max-model-len', '65536'], { FPSWEEP_STANDIN_LATENCY: 'a=1,b=0' });
    const client = new VllmClient({ url: s.url, apiKey: null }, { maxRetries: 0 });
    try {
      const prompts = [0, 1, 2, 3, 4].map((i) => fpChatRequest({ model: MODEL, promptText: `question ${i}`, images: [] }));
      const t0 = performance.now();
      const all = Promise.all(prompts.map((p) => client.chat(p)));
      // Poll until all five have arrived (a loaded machine may take a moment), well inside round one.
      const metrics = async () => parseVllmMetrics((await client.get('/metrics')).text, MODEL);
      const mid = await waitFor(
        async () => {
          const m = await metrics();
          return m.running + m.waiting >= 5 && m;
        },
        800 - (performance.now() - t0),
        'all five requests arrived within round one',
        { pollMs: 20 },
      );
      assert.equal(mid.running, 2);
      assert.equal(mid.waiting, 3);
      const results = await all;
      const wall = (performance.now() - t0) / 1000;
      assert.ok(results.every((r) => r.ok));
      assert.ok(wall >= 2.9 && wall < 5.5, `5 requests of 1 s two at a time take 3 rounds, took ${wall}`);
      const end = parseVllmMetrics((await client.get('/metrics')).text, MODEL);
      assert.equal(end.running, 0);
      assert.equal(end.waiting, 0);
      const sum = results.reduce((t, r) => t + (r.ok ? r.usage.prompt_tokens : 0), 0);
      assert.equal(end.promptTokens, sum);
      assert.equal(parseVllmMetrics((await client.get('/metrics')).text, 'another/model').promptTokens, 0);
    } finally {
      await client.close();
      await s.stop();
    }
  });

  it('serves leading frames seen before from its prefix cache: fewer charged tokens, less latency', async () => {
    const s = await startStandin(['--max-model-len', '65536'], { FPSWEEP_STANDIN_LATENCY: 'a=0.01,b=0.0003' });
    const client = new VllmClient({ url: s.url, apiKey: null }, { maxRetries: 0 });
    try {
      const frames = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => makeJpeg(448, 448, 10 + i)));
      const images = frames.map((jpeg) => ({ jpeg }));
      const imageTokens = 8 * qwenImageTokens(448, 448);
      const q1 = buildPromptText('first question?', ['x', 'y']);
      const q2 = buildPromptText('second question?', ['x', 'y']);
      const first = await client.chat(fpChatRequest({ model: MODEL, promptText: q1, images }));
      const m1 = parseVllmMetrics((await client.get('/metrics')).text);
      const second = await client.chat(fpChatRequest({ model: MODEL, promptText: q2, images }));
      const m2 = parseVllmMetrics((await client.get('/metrics')).text);
      assert.ok(first.ok && second.ok);
      assert.equal(m1.prefixHits, 0);
      assert.equal(m2.prefixHits - m1.prefixHits, Math.floor(imageTokens / 16) * 16, 'the 8 shared frames hit, in whole blocks');
      assert.equal(m2.prefixQueries - m1.prefixQueries, second.usage.prompt_tokens);
      // 8 × 258 tokens × 0.3 ms ≈ 0.6 s of prefill saved.
      assert.ok(second.latency_s < first.latency_s - 0.3, `cached ${second.latency_s} vs cold ${first.latency_s}`);
      // Other frames first: no hit at all, the cache is over leading frames.
      const m3before = m2.prefixHits;
      const shuffled = [images[1], images[0], ...images.slice(2)];
      await client.chat(fpChatRequest({ model: MODEL, promptText: q1, images: shuffled }));
      const m3 = parseVllmMetrics((await client.get('/metrics')).text);
      assert.equal(m3.prefixHits, m3before);
    } finally {
      await client.close();
      await s.stop();
    }
  });

  it('refuses the SPEC §2.5 example: 1024 square 224-px frames (1024 × 66 tokens + text) exceed 65,536', async () => {
    const s = await startStandin(['--max-model-len', '65536', '--limit-mm-per-prompt', '{"image": 1024}'], {});
    const client = new VllmClient({ url: s.url, apiKey: null }, { maxRetries: 2, baseDelayMs: 5 });
    try {
      const jpeg = await makeJpeg(224, 224, 7);
      const prompt = buildPromptText('What is shown?', ['a', 'b', 'c', 'd']);
      const tooMany = await client.chat(fpChatRequest({ model: MODEL, promptText: prompt, images: Array.from({ length: 1025 }, () => ({ jpeg })) }));
      assert.ok(!tooMany.ok && tooMany.kind === 'request' && /At most 1024 image\(s\)/.test(tooMany.message));
      const r = await client.chat(fpChatRequest({ model: MODEL, promptText: prompt, images: Array.from({ length: 1024 }, () => ({ jpeg })) }));
      const tokens = predictPromptTokens(
        Array.from({ length: 1024 }, () => ({ width: 224, height: 224 })),
        prompt,
      );
      assert.ok(tokens > 65536 && 1024 * 66 === 67584);
      assert.ok(!r.ok && r.kind === 'context' && r.attempts === 1, JSON.stringify(r).slice(0, 300));
      assert.match(r.message, new RegExp(`decoder prompt \\(length ${tokens}\\) is longer than the maximum model length of 65536`));
      // 980 frames (64,680 image tokens + the text) fit and are answered.
      const fits = await client.chat(fpChatRequest({ model: MODEL, promptText: prompt, images: Array.from({ length: 980 }, () => ({ jpeg })) }));
      assert.ok(fits.ok, JSON.stringify(fits).slice(0, 300));
      assert.equal(
        fits.usage.prompt_tokens,
        predictPromptTokens(
          Array.from({ length: 980 }, () => ({ width: 224, height: 224 })),
          prompt,
        ),
      );
    } finally {
      await client.close();
      await s.stop();
    }
  });

  it('answers 503 every Nth request; the client retries and succeeds', async () => {
    const inspect = path.join(tmpDir('inspect503'), 'r.jsonl');
    const s = await startStandin([], { FPSWEEP_STANDIN_FAULTS: 'status503Every=3', FPSWEEP_STANDIN_INSPECT: inspect, FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' });
    const client = new VllmClient({ url: s.url, apiKey: null }, { maxRetries: 2, baseDelayMs: 5 });
    try {
      const attempts: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await client.chat(fpChatRequest({ model: MODEL, promptText: `q${i}`, images: [] }));
        assert.ok(r.ok, JSON.stringify(r));
        attempts.push(r.attempts);
      }
      // Sends 1, 2 pass; send 3 is a 503 and its retry (send 4) passes; send 5 passes; send 6 is a 503 → send 7.
      assert.deepEqual(attempts, [1, 1, 2, 1, 2]);
      assert.equal(readJsonl(inspect).length, 5, 'the 503s never reached the engine');
      const always = await startStandin([], { FPSWEEP_STANDIN_FAULTS: 'status503Every=1' });
      const c2 = new VllmClient({ url: always.url, apiKey: null }, { maxRetries: 2, baseDelayMs: 5 });
      const r = await c2.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [] }));
      await c2.close();
      await always.stop();
      assert.ok(!r.ok && r.kind === 'server_down' && r.attempts === 3 && r.status === 503);
    } finally {
      await client.close();
      await s.stop();
    }
  });

  it('leaves with its owner (FPSWEEP_STANDIN_OWNER_PID), so a killed runner leaves no stand-in', async () => {
    const { execa } = await import('execa');
    const owner = execa('sleep', ['30'], { reject: false });
    const s = await startStandin([], { FPSWEEP_STANDIN_OWNER_PID: String(owner.pid) });
    owner.kill('SIGKILL');
    await owner;
    const t0 = Date.now();
    const r = await Promise.race([s.proc, new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
    assert.notEqual(r, 'still running');
    assert.ok(Date.now() - t0 < 5_000);
    assert.match(s.output(), /launcher process \d+ is gone; shutting down/);
  });

  it('refuses the context at start with vLLM KV-cache error and exit 1', async () => {
    await buildStandin();
    const { execa } = await import('execa');
    const r = await execa(FAKE_VLLM, ['serve', MODEL, '--port', '1', '--max-model-len', '65536'], {
      reject: false,
      env: { FPSWEEP_STANDIN_FAULTS: 'kvCacheTokens=40000' },
    });
    assert.equal(r.exitCode, 1);
    assert.match(
      String(r.stderr),
      new RegExp(
        String.raw`To serve at least one request with the models's max seq len \(65536\), ` +
          String.raw`\(9\.00 GiB KV cache is needed, which is larger than the available KV cache memory`,
      ),
    );
    assert.match(String(r.stderr), /the estimated maximum model length is 40000/);
  });
});
