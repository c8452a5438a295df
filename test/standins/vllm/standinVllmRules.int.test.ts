// The stand-in against rules read in vLLM 0.11's own source (each named in the stand-in's comments):
// the literal --allowed-local-media-path, the max_model_len boundary, the KV-cache wording, /health.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { predictPromptTokens } from '../../../src/core/protocols/fp/rules/qwenTokens';
import { fpChatRequest } from '../../../src/core/protocols/fp/serving/fpServing';
import { VllmClient } from '../../../src/core/serving/client';
import * as msg from '../../../src/core/serving/vllmMessages';
import { parseServeArgs } from '../../../src/standins/vllm/args';
import { readStandinEnv } from '../../../src/standins/vllm/config';
import { startStandinServer } from '../../../src/standins/vllm/server';
import { buildStandin, FAKE_VLLM, freePortBase, makeJpeg, startStandin, tmpDir } from '../../core/serving/helpers';

const MODEL = 'test/model';
const KEY = 'rules-key';

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

describe('stand-in vLLM: rules from vLLM 0.11', function () {
  this.timeout(60_000);

  describe('--allowed-local-media-path is taken as given, the file is resolved (multimodal/utils.py)', () => {
    let real: string;
    let link: string;
    before(async () => {
      const root = tmpDir('media-link');
      real = path.join(root, 'real');
      link = path.join(root, 'link');
      fs.mkdirSync(real);
      fs.symlinkSync(real, link);
      fs.writeFileSync(path.join(real, 'f.jpg'), await makeJpeg(64, 48, 3));
    });

    async function ask(allowed: string, file: string) {
      const s = await startStandin(['--allowed-local-media-path', allowed], { VLLM_API_KEY: KEY });
      const c = new VllmClient({ url: s.url, apiKey: KEY }, { maxRetries: 0 });
      try {
        return await c.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ fileUrl: pathToFileURL(file).href }] }));
      } finally {
        await c.close();
        await s.stop();
      }
    }

    it('refuses every file when the flag names a symlink, with the path as sent and the flag as given', async () => {
      for (const file of [path.join(link, 'f.jpg'), path.join(real, 'f.jpg')]) {
        const r = await ask(link, file);
        assert.ok(!r.ok && r.status === 400, JSON.stringify(r));
        assert.equal(r.message, msg.preprocessingMessage(msg.fileOutsideAllowedPath(file, link)));
      }
    });

    it('takes files reached either way when the flag names the real path (a trailing slash is dropped as Path does)', async () => {
      for (const file of [path.join(link, 'f.jpg'), path.join(real, 'f.jpg')]) {
        const r = await ask(real + '/', file);
        assert.ok(r.ok, JSON.stringify(r));
      }
    });
  });

  it('answers a prompt of exactly --max-model-len tokens with one token, and refuses one token more (engine/processor.py, sched/utils.py)', async () => {
    const jpeg = await makeJpeg(320, 240, 7);
    const L = predictPromptTokens([{ width: 320, height: 240 }], 'q');
    for (const [maxModelLen, expect] of [
      [L, 'one token'],
      [L - 1, 'refused'],
    ] as const) {
      const s = await startStandin(['--max-model-len', String(maxModelLen)], {});
      const c = new VllmClient({ url: s.url, apiKey: null }, { maxRetries: 0 });
      try {
        const r = await c.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [{ jpeg }] }));
        if (expect === 'one token') {
          assert.ok(r.ok, JSON.stringify(r));
          assert.equal(r.usage.prompt_tokens, L);
          assert.equal(r.usage.completion_tokens, 1);
          assert.equal(r.finishReason, 'length');
        } else {
          assert.ok(!r.ok && r.status === 400 && r.kind === 'context', JSON.stringify(r));
          assert.equal(r.message, msg.decoderPromptTooLong(L, L - 1));
        }
      } finally {
        await c.close();
        await s.stop();
      }
    }
  });

  it("prints the KV-cache refusal in vLLM's words, which the launcher recognises (v1/core/kv_cache_utils.py)", async () => {
    await buildStandin();
    const { execa } = await import('execa');
    const r = await execa(FAKE_VLLM, ['serve', MODEL, '--port', '1', '--max-model-len', '65536'], {
      reject: false,
      env: { FPSWEEP_STANDIN_FAULTS: 'kvCacheTokens=40000' },
    });
    assert.equal(r.exitCode, 1);
    assert.match(String(r.stderr), /ValueError: To serve at least one request with the models's max seq len \(65536\), \(9\.00 GiB KV cache is needed/);
    // vLLM's own line, as its f-string prints it (not our generator's), and its first half alone (wrapped logs).
    const real =
      "(EngineCore_DP0 pid=4242) ValueError: To serve at least one request with the models's max seq len (65536), (9.00 GiB KV " +
      'cache is needed, which is larger than the available KV cache memory (5.49 GiB). Based on the available memory, the ' +
      'estimated maximum model length is 39984. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.';
    assert.ok(msg.isKvCacheRefusal(real));
    assert.ok(msg.isKvCacheRefusal("ValueError: To serve at least one request with the models's max seq len (65536), (9.00 GiB KV"));
  });

  describe('/health (entrypoints/openai/api_server.py)', () => {
    it('needs no key while /v1 does, and only an exact `Bearer <key>` opens /v1', async () => {
      const s = await startStandin([], { VLLM_API_KEY: KEY });
      try {
        const health = await fetch(`${s.url}/health`);
        assert.equal(health.status, 200);
        assert.equal(await health.text(), '');
        for (const auth of [undefined, `bearer ${KEY}`, `Bearer  ${KEY}`, `Bearer ${KEY}x`]) {
          const r = await fetch(`${s.url}/v1/models`, { headers: auth ? { authorization: auth } : {} });
          assert.equal(r.status, 401, String(auth));
        }
        assert.equal((await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
      } finally {
        await s.stop();
      }
    });

    it('refuses connections while the model loads (the port is bound, not listened on)', async function () {
      this.timeout(15_000);
      await buildStandin();
      const port = await freePortBase();
      const { execa } = await import('execa');
      const proc = execa(FAKE_VLLM, ['serve', MODEL, '--host', '127.0.0.1', '--port', String(port)], {
        reject: false,
        all: true,
        env: { FPSWEEP_STANDIN_FAULTS: 'startupDelayMs=60000' },
      });
      try {
        // The load starts with this line and lasts 60 s; the port opens only after it.
        await new Promise<void>((resolve) => {
          let out = '';
          proc.all?.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('Starting to load model')) resolve();
          });
        });
        assert.ok(await refused(port));
      } finally {
        proc.kill('SIGKILL');
        await proc;
      }
    });

    it('answers 503 with an empty body once the engine is dead', async () => {
      const port = await freePortBase();
      let crashes = 0;
      const args = parseServeArgs(['serve', MODEL, '--host', '127.0.0.1', '--port', String(port)], {});
      const server = await startStandinServer(args, readStandinEnv({ FPSWEEP_STANDIN_FAULTS: 'crashAfter=1' }), { onCrash: () => crashes++ });
      const c = new VllmClient({ url: `http://127.0.0.1:${port}`, apiKey: null }, { maxRetries: 0 });
      try {
        assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
        assert.ok((await c.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [] }))).ok);
        const second = await c.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [] }));
        assert.ok(!second.ok);
        assert.equal(crashes, 1);
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(health.status, 503);
        assert.equal(await health.text(), '');
      } finally {
        await c.close();
        await server.close();
      }
    });
  });
});
