// The stand-in server accounts vLLM 0.11's front end in /metrics, from the same model (cost/frontEnd.ts):
// repeated images hit the processor cache, a part's uuid skips the hash, --mm-processor-cache-gb 0 never hits.
import * as assert from 'node:assert/strict';
import { processInputs, type FrontEndImage } from '../../../../src/standins/vllm/cost/frontEnd';
import { ProcessorCache } from '../../../../src/standins/vllm/cost/processorCache';
import { contentKey } from '../../../../src/standins/vllm/prefixCache';
import { makeJpeg, startStandin, type RunningStandin } from '../../../core/serving/helpers';

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(name + '{'));
  assert.ok(line, `${name} in /metrics`);
  return Number(line.split(' ').pop());
}

async function chat(url: string, jpegs: Buffer[], uuids: Array<string | null>): Promise<void> {
  const content = [
    ...jpegs.map((j, k) => ({
      type: 'image_url',
      image_url: { url: `data:image/jpeg;base64,${j.toString('base64')}` },
      ...(uuids[k] ? { uuid: uuids[k] } : {}),
    })),
    { type: 'text', text: 'Which? A. x B. y' },
  ];
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'test/model', messages: [{ role: 'user', content }], max_tokens: 8, temperature: 0 }),
  });
  assert.equal(r.status, 200, await r.text());
}

describe('stand-in server: front-end accounting (vLLM 0.11 cost model)', function () {
  this.timeout(120_000);
  let jpegs: Buffer[];
  before(async () => {
    jpegs = await Promise.all([1, 2, 3].map((s) => makeJpeg(398, 224, s)));
  });

  for (const gb of [4, 0]) {
    it(`--mm-processor-cache-gb ${gb}: /metrics counts look-ups, hits and the API thread's model seconds`, async () => {
      let s: RunningStandin | null = null;
      try {
        s = await startStandin(['--max-model-len', '65536', '--mm-processor-cache-gb', String(gb)], { FPSWEEP_STANDIN_LATENCY: 'model=1,speed=1000' });
        const plain = [null, null, null];
        const withUuid = ['u1', 'u2', null];
        // One request at a time: the order the cache sees is the order sent.
        await chat(s.url, jpegs, plain);
        await chat(s.url, jpegs, plain);
        await chat(s.url, jpegs, withUuid);
        const text = await (await fetch(`${s.url}/metrics`)).text();
        const cache = gb > 0 ? ProcessorCache.fromGb(gb) : null;
        const imgs = (uuids: Array<string | null>): FrontEndImage[] => jpegs.map((j, k) => ({ key: contentKey(j), width: 398, height: 224, uuid: uuids[k] }));
        const expected = [processInputs(imgs(plain), cache), processInputs(imgs(plain), cache), processInputs(imgs(withUuid), cache)];
        assert.equal(metric(text, 'fpsweep_standin_mm_cache_queries_total'), 9);
        assert.equal(metric(text, 'fpsweep_standin_mm_cache_hits_total'), gb > 0 ? 4 : 0); // the 2nd request's 3 + the 3rd's uuid-less one
        const threadS = expected.reduce((t, r) => t + r.threadS, 0);
        assert.ok(Math.abs(metric(text, 'fpsweep_standin_frontend_busy_seconds_total') - threadS) < 1e-9);
        assert.ok(metric(text, 'fpsweep_standin_busy_seconds_total') > 0, 'the modelled GPU worked');
        assert.equal(expected[2].hashS < expected[1].hashS, true, 'uuids skip their hashes');
      } finally {
        await s?.stop();
      }
    });
  }
});
