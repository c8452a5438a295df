// Pure parts of the serving layer: request body, metrics parsing, GPU choice, vLLM CLI parsing,
// env knobs, the prefix-cache model, answer forms, and the client's classification without a server.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildPromptText } from '../../../src/core/protocols/fp/rules/prompt';
import { parseAnswerLetter } from '../../../src/core/protocols/fp/rules/answer';
import { fpChatRequest } from '../../../src/core/protocols/fp/serving/fpServing';
import { buildChatRequest } from '../../../src/core/serving/chatRequest';
import { VllmClient, errorMessage } from '../../../src/core/serving/client';
import { chooseGpus } from '../../../src/core/serving/gpus';
import { parseVllmMetrics } from '../../../src/core/serving/metrics';
import { ArgError, parseServeArgs } from '../../../src/standins/vllm/args';
import { readStandinEnv } from '../../../src/standins/vllm/config';
import { PrefixCache } from '../../../src/standins/vllm/prefixCache';
import { renderMetrics, newCounters } from '../../../src/standins/vllm/metrics';
import { standinAnswer } from '../../../src/standins/vllm/answer';
import { Engine, type PrefillMode } from '../../../src/standins/vllm/engine';
import { loadImages } from '../../../src/standins/vllm/request';
import { jpegHeader } from '../../../src/standins/vllm/jpegHeader';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import * as msg from '../../../src/core/serving/vllmMessages';
import { freePortBase } from './helpers';
import { ManualClock } from '../../helpers/manualClock';

describe('serving units', () => {
  it('builds the protocol request: frames in order, then the text; temperature 0, max_tokens 128', () => {
    const body = fpChatRequest({
      model: 'm',
      promptText: 'P',
      images: [{ jpeg: Buffer.from([0xff, 0xd8, 1]) }, { fileUrl: 'file:///store/a.jpg' }],
    });
    assert.deepEqual(body, {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9gB' } },
            { type: 'image_url', image_url: { url: 'file:///store/a.jpg' } },
            { type: 'text', text: 'P' },
          ],
        },
      ],
      temperature: 0,
      max_tokens: 128,
    });
    assert.throws(() => fpChatRequest({ model: 'm', promptText: 'P', images: [{ fileUrl: '/store/a.jpg' }] }), /file:\/\//);
  });

  it("the engine's request builder takes the decoding from the caller (it fixes none of its own)", () => {
    const body = buildChatRequest({ model: 'm', promptText: 'P', images: [], decoding: { temperature: 0.7, maxTokens: 5 } });
    assert.deepEqual([body.temperature, body.max_tokens], [0.7, 5]);
  });

  it('parses vLLM /metrics: sums engines, filters by model, round-trips the stand-in page', () => {
    const text = [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      'vllm:num_requests_running{engine="0",model_name="a"} 3.0',
      'vllm:num_requests_running{engine="1",model_name="a"} 2.0',
      'vllm:num_requests_running{engine="0",model_name="b"} 7.0',
      'vllm:num_requests_waiting{engine="0",model_name="a"} 1.0',
      'vllm:prompt_tokens_total{engine="0",model_name="a"} 1.5e+06',
      'vllm:prompt_tokens_created{engine="0",model_name="a"} 1.7e+09',
      'vllm:prefix_cache_queries_total{engine="0",model_name="a"} 100.0',
      'vllm:prefix_cache_hits_total{engine="0",model_name="a"} 64.0',
      'garbage line without value',
    ].join('\n');
    assert.deepEqual(parseVllmMetrics(text, 'a'), { running: 5, waiting: 1, promptTokens: 1.5e6, prefixQueries: 100, prefixHits: 64 });
    assert.equal(parseVllmMetrics(text).running, 12);
    const c = { ...newCounters(), promptTokens: 1234, prefixQueries: 1234, prefixHits: 1200 };
    assert.deepEqual(parseVllmMetrics(renderMetrics('Qwen/Qwen3-VL-8B-Instruct', 4, 9, c, 1.7e9), 'Qwen/Qwen3-VL-8B-Instruct'), {
      running: 4,
      waiting: 9,
      promptTokens: 1234,
      prefixQueries: 1234,
      prefixHits: 1200,
    });
  });

  it('chooses GPUs from nvidia-smi, NGPU, or one with a warning', async () => {
    assert.deepEqual(await chooseGpus(undefined, async () => [0, 1, 2, 3]), { gpus: [0, 1, 2, 3], warning: null });
    assert.deepEqual(await chooseGpus(2, async () => [0, 1, 2, 3]), { gpus: [0, 1], warning: null });
    await assert.rejects(
      chooseGpus(5, async () => [0, 1]),
      /NGPU=5 but nvidia-smi lists 2/,
    );
    assert.deepEqual(await chooseGpus(3, async () => null), { gpus: [0, 1, 2], warning: null });
    const one = await chooseGpus(undefined, async () => null);
    assert.deepEqual(one.gpus, [0]);
    assert.match(one.warning!, /assuming one GPU/);
  });

  it('parses `serve` flags like vLLM argparse', () => {
    const a = parseServeArgs(
      [
        'serve',
        'Qwen/X',
        '--max-model-len',
        '65536',
        '--limit-mm-per-prompt',
        '{"image": 1024}',
        '--max-num-seqs=8',
        '--gpu-memory-utilization',
        '0.85',
        '--port',
        '8011',
        '--host',
        '127.0.0.1',
      ],
      { VLLM_API_KEY: 'from-env' },
    );
    assert.equal(a.maxModelLen, 65536);
    assert.equal(a.limitImages, 1024);
    assert.equal(a.maxNumSeqs, 8);
    assert.equal(a.apiKey, 'from-env');
    assert.equal(a.servedModelName, 'Qwen/X');
    assert.equal(parseServeArgs(['serve', 'm', '--api-key', 'flag'], { VLLM_API_KEY: 'env' }).apiKey, 'flag');
    assert.throws(
      () => parseServeArgs(['serve', 'm', '--port', 'x'], {}),
      (e: Error) => e instanceof ArgError && /invalid int value: 'x'/.test(e.message),
    );
    assert.throws(() => parseServeArgs(['serve', 'm', '--limit-mm-per-prompt', '{image: 3}'], {}), /invalid loads value/);
    // The caption launch's limits: one video and one audio item per prompt (999 each unless given).
    const av = parseServeArgs(['serve', 'm', '--limit-mm-per-prompt', '{"video": 1, "audio": 1}'], {});
    assert.deepEqual([av.limitImages, av.limitVideos, av.limitAudios], [999, 1, 1]);
    assert.throws(() => parseServeArgs(['serve', 'm', '--limit-mm-per-prompt', '{"audio": "1"}'], {}), /invalid loads value/);
    assert.throws(() => parseServeArgs(['serve', 'm', '--max-model-len'], {}), /expected one argument/);
    assert.throws(() => parseServeArgs(['serve'], {}), /required: model_tag/);
  });

  it('reads stand-in knobs, scoped per GPU, and rejects malformed ones', () => {
    const env = readStandinEnv({
      FPSWEEP_STANDIN_LATENCY: 'a=0.05,b=0.00002',
      FPSWEEP_STANDIN_FAULTS: 'status503Every=7',
      FPSWEEP_STANDIN_FAULTS_1: 'crashAfter=50',
      CUDA_VISIBLE_DEVICES: '1',
    });
    assert.equal(env.latency.a, 0.05);
    assert.equal(env.latency.b, 0.00002);
    assert.equal(env.faults.crashAfter, 50);
    assert.equal(env.faults.status503Every, 0, 'the GPU-scoped value replaces the shared one');
    assert.throws(() => readStandinEnv({ FPSWEEP_STANDIN_FAULTS: 'crashAfter=x' }), /key=number/);
    assert.throws(() => readStandinEnv({ FPSWEEP_STANDIN_FAULTS: 'crashAftr=3' }), /crashAftr/);
  });

  it('models prefix caching: longest leading chain, whole blocks, last token recomputed, LRU capacity', () => {
    const c = new PrefixCache(10_000);
    const seg = (k: string, t: number) => ({ key: k, tokens: t });
    assert.equal(c.lookupAndInsert([seg('a', 100), seg('b', 100), seg('t1', 30)], 230).hitTokens, 0);
    assert.deepEqual(c.lookupAndInsert([seg('a', 100), seg('b', 100), seg('t2', 30)], 230), { hitTokens: 192, hitSegments: 2 });
    assert.deepEqual(c.lookupAndInsert([seg('b', 100), seg('a', 100), seg('t2', 30)], 230), { hitTokens: 0, hitSegments: 0 });
    // A full repeat hits everything but the last token, in whole blocks: min(230, 229) → 224.
    assert.equal(c.lookupAndInsert([seg('a', 100), seg('b', 100), seg('t1', 30)], 230).hitTokens, 224);
    const small = new PrefixCache(250);
    small.lookupAndInsert([seg('a', 100), seg('b', 100)], 200);
    small.lookupAndInsert([seg('c', 100)], 100); // evicts the oldest entries to stay within 250
    assert.ok(small.sizeTokens <= 250);
    assert.equal(small.lookupAndInsert([seg('a', 100), seg('b', 100)], 200).hitTokens, 0);
  });

  it('answers deterministically in forms the protocol parser reads', () => {
    const forms = new Set<string>();
    let unclear = 0;
    for (let i = 0; i < 300; i++) {
      const p = buildPromptText(`question ${i}`, ['a', 'b', 'c', 'd', 'e']);
      const r = standinAnswer(p, [`img${i}`]);
      assert.equal(standinAnswer(p, [`img${i}`]), r);
      const letter = parseAnswerLetter(r);
      if (r === 'Unclear from the frames.') {
        unclear++;
        assert.equal(letter, '');
      } else assert.match(letter, /^[A-E]$/, r);
      forms.add(r.replace(/[A-E]/, 'X'));
    }
    assert.ok(forms.size >= 4, [...forms].join(' | '));
    assert.ok(unclear > 0 && unclear < 60);
  });

  it('reads vLLM error bodies of every vintage and recognises context refusals', () => {
    assert.equal(errorMessage(400, JSON.stringify(msg.errorBody('nested'))), 'nested');
    assert.equal(errorMessage(400, JSON.stringify({ object: 'error', message: 'flat', type: 'BadRequestError', code: 400 })), 'flat');
    assert.equal(errorMessage(401, JSON.stringify({ error: 'Unauthorized' })), 'Unauthorized');
    assert.equal(errorMessage(502, '<html>bad gateway</html>'), '<html>bad gateway</html>');
    assert.ok(msg.isContextRefusal(msg.decoderPromptTooLong(67584, 65536)));
    assert.ok(msg.isContextRefusal(msg.preprocessingMessage(msg.contextLengthExceeded(65500, 128, 65536))));
    assert.ok(!msg.isContextRefusal(msg.preprocessingMessage(msg.tooManyItems(1024))));
    assert.ok(msg.isKvCacheRefusal(msg.kvCacheTooSmall(65536, 9, 5.5, 40000)));
    assert.ok(msg.isOutOfMemory('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'));
  });

  it('client: retries connection refused with backoff, then reports server_down', async () => {
    const port = await freePortBase(); // nothing listens there
    const c = new VllmClient({ url: `http://127.0.0.1:${port}`, apiKey: null }, { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 40 });
    const t0 = performance.now();
    const r = await c.chat(fpChatRequest({ model: 'm', promptText: 'q', images: [] }));
    const ms = performance.now() - t0;
    await c.close();
    assert.ok(!r.ok && r.kind === 'server_down' && r.attempts === 4 && r.status === null, JSON.stringify(r));
    assert.match(r.message, /ECONNREFUSED/);
    assert.ok(ms >= 30 && ms < 2_000, `3 backoffs of 10–40 ms, took ${ms}`);
  });

  it('client: retries 429/500 (honouring Retry-After), never 400/401; a reset connection is retried', async () => {
    const script: Array<(res: http.ServerResponse, req: http.IncomingMessage) => void> = [];
    let hits = 0;
    const srv = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits++;
        (script.shift() ?? ((r) => r.writeHead(500).end()))(res, req);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const ok = (res: http.ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          choices: [{ message: { content: 'B' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
    const c = new VllmClient({ url, apiKey: 'k' }, { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 1_000 });
    const body = fpChatRequest({ model: 'm', promptText: 'q', images: [] });
    try {
      script.push(
        (res) => res.writeHead(429, { 'retry-after': '0.3' }).end('{}'),
        (res) => res.destroy(),
        ok,
      );
      const t0 = performance.now();
      const r = await c.chat(body);
      assert.ok(r.ok && r.attempts === 3 && r.text === 'B' && r.usage.total_tokens === 11, JSON.stringify(r));
      assert.ok(performance.now() - t0 >= 290, 'Retry-After is honoured');
      hits = 0;
      script.push((res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(msg.errorBody('bad image'))));
      const bad = await c.chat(body);
      assert.ok(!bad.ok && bad.kind === 'request' && bad.attempts === 1 && bad.message === 'bad image');
      assert.equal(hits, 1);
      hits = 0;
      const r500 = await c.chat(body); // the default script answers 500 forever
      assert.ok(!r500.ok && r500.kind === 'request' && r500.attempts === 4 && r500.status === 500);
      assert.equal(hits, 4);
    } finally {
      await c.close();
      srv.close();
    }
  });
  // The engine runs on a clock the test moves (ManualClock): the modelled times are read exactly, and a busy host is
  // the clock moved on with no timer fired; the host's own timers (late under load) are not raced.
  it('stand-in engine: prefill shared like one GPU, or parallel; slots limited by max-num-seqs', async () => {
    assert.deepEqual((await engineEnds(8, 'shared', [0.3, 0.3, 0.3])).ends, [0.9, 0.9, 0.9], '3 × 0.3 s shared: all at 0.9 s');
    assert.deepEqual((await engineEnds(8, 'parallel', [0.3, 0.3, 0.3])).ends, [0.3, 0.3, 0.3], 'in parallel: all at 0.3 s');
    assert.deepEqual((await engineEnds(1, 'parallel', [0.2, 0.2, 0.2])).ends, [0.2, 0.4, 0.6], 'one slot: one after another');
  });

  it('stand-in engine: a late timer on a busy host wastes no modelled GPU time; busy seconds = work done', async () => {
    const clock = new ManualClock();
    const engine = new Engine(8, 'shared', clock);
    const ends: string[] = [];
    const at = (what: string) => () => ends.push(`${what} ${ms(clock.now())}`);
    const jobs = [
      ...Array.from({ length: 4 }, () => engine.run({ workS: 0.05, fixedS: 0 }).then(at('short'))),
      engine.run({ workS: 0.5, fixedS: 0 }).then(at('long')),
    ];
    // The host busy for 0.5 s: the short jobs ran out at 0.25 s, their timer fires late (at 0.5 s).
    clock.block(500);
    await clock.runAll();
    await Promise.all(jobs);
    // 0.7 s of work in all; the 0.25 s after the short jobs ended went to the long one (not lost).
    assert.deepEqual(ends, ['short 500', 'short 500', 'short 500', 'short 500', 'long 700'], 'work-conserving: the long job ends at 0.7 s');
    assert.equal(ms(engine.busySeconds * 1000), 700, 'busy seconds = the 0.7 s of work');
  });

  it('stand-in: a local frame read once is known by its file until the file changes', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'standin-files-'));
    try {
      const f = path.join(dir, 'a.jpg');
      const jpeg = (r: number) =>
        sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g: 0, b: 0 } } })
          .jpeg({ quality: 85 })
          .toBuffer();
      const first = await jpeg(10);
      await fsp.writeFile(f, first);
      const url = pathToFileURL(f).href;
      const [a] = await loadImages([url], 4, dir);
      const [b] = await loadImages([url], 4, dir);
      assert.equal(b.key, a.key);
      assert.deepEqual(await b.bytes(), first);
      assert.deepEqual([b.width, b.height, b.size], [64, 48, first.length]);
      // Rewritten in place (the frame pipeline reuses names): the new content, never the remembered one.
      const second = await jpeg(200);
      await fsp.writeFile(f, second);
      const [c] = await loadImages([url], 4, dir);
      assert.notEqual(c.key, a.key);
      assert.deepEqual(await c.bytes(), second);
      await fsp.rm(f);
      await assert.rejects(loadImages([url], 4, dir), /No such file or directory/);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it("stand-in: reads a JPEG's size from its frame header like sharp, and nothing else", async () => {
    const img = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: { r: 9, g: 99, b: 199 } } });
    const cases = [
      await img(398, 224).jpeg({ quality: 85 }).toBuffer(),
      await img(224, 398).jpeg({ quality: 85, progressive: true }).toBuffer(),
      await img(1280, 720).withMetadata({ orientation: 1 }).jpeg({ quality: 85, chromaSubsampling: '4:4:4' }).toBuffer(),
    ];
    for (const b of cases) {
      const m = await sharp(b).metadata();
      assert.deepEqual(jpegHeader(b), { width: m.width, height: m.height });
    }
    assert.equal(jpegHeader(await img(64, 64).png().toBuffer()), null);
    assert.equal(jpegHeader(Buffer.from([0xff, 0xd8, 1])), null);
    assert.equal(jpegHeader(cases[0].subarray(0, 40)), null);
  });

  it("stand-in engine in vLLM's order: prefills finish one after another in admission order", async () => {
    // Processor sharing would end all three at 0.6 s; first come, first served ends them at 0.2, 0.4, 0.6.
    assert.deepEqual(await engineEnds(8, 'fcfs', [0.2, 0.2, 0.2]), { ends: [0.2, 0.4, 0.6], busyMs: 600 });
  });
});

/** Milliseconds to a whole number of microseconds (the engine's float arithmetic, read exactly). */
const ms = (t: number) => Math.round(t * 1000) / 1000;

/** An engine on a ManualClock given jobs of `works` seconds (no fixed part): when each ends (s, in the order given), and its busy ms. */
async function engineEnds(maxNumSeqs: number, mode: PrefillMode, works: number[]): Promise<{ ends: number[]; busyMs: number }> {
  const clock = new ManualClock();
  const engine = new Engine(maxNumSeqs, mode, clock);
  const ends: number[] = [];
  const jobs = works.map((workS, i) => engine.run({ workS, fixedS: 0 }).then(() => (ends[i] = ms(clock.now()) / 1000)));
  await clock.runAll();
  await Promise.all(jobs);
  return { ends, busyMs: ms(engine.busySeconds * 1000) };
}
