import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { startServers, readServerRecords } from '../../../../../src/core/protocols/avtime/stages/servers';
import { mediaRoot } from '../../../../../src/core/protocols/avtime/stages/drivers/infer';
import { freePortBase } from '../../../serving/helpers';
import { tmpDir } from './fixtures';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../../../../src/core/errors';
import { JUDGE_MAX_MODEL_LEN } from '../../../../../src/core/protocols/avtime/judge/context';
import { FAKE_VLLM } from '../../fp/sweep/helpers';
import { readServerRecords as readLaunchedServers } from '../../../../../src/core/serving/leftovers';
import { pidAlive } from '../../../../../src/core/runner/lock';

/** A running server (for --*-endpoint) whose GET /version reports `version`. */
async function versionStub(version: string) {
  const server = http.createServer((req, res) => {
    if (req.url === '/version') return void res.end(JSON.stringify({ version }));
    if (req.url === '/health') return void res.end('');
    if (req.url === '/v1/models') return void res.end(JSON.stringify({ data: [{ id: 'm', max_model_len: 16384 }] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const BIN = path.join(__dirname, 'recordingVllm.js');

describe('avtime stages: servers on GPU groups (SPEC-AVTIME §3, §9)', function () {
  this.timeout(30_000);

  it('launches one `serve` per group: CUDA_VISIBLE_DEVICES = the group, TP, 65536, the real media path, 127.0.0.1, a key', async () => {
    const dir = tmpDir('servers');
    const record = path.join(dir, 'record');
    fs.mkdirSync(record);
    const realMedia = path.join(dir, 'media-real');
    fs.mkdirSync(realMedia);
    fs.symlinkSync(realMedia, path.join(dir, 'media-link'));
    const file = path.join(dir, 'media-link', 'v.mp4');
    fs.writeFileSync(file, 'x');
    const root = mediaRoot([file]);
    assert.equal(root, fs.realpathSync(realMedia), 'the allowed path is the real one (vLLM 0.11 resolves each file, takes the flag literally)');
    const layout = new AvtimeRunLayout(path.join(dir, 'out'), 'r1');
    const basePort = await freePortBase(2);
    process.env.RECORD_DIR = record;
    const s = await startServers({
      role: 'target',
      layout,
      model: '/models/avtime',
      groups: [
        [0, 1],
        [2, 3],
      ],
      tp: 2,
      basePort,
      mediaRoot: root,
      vllmBin: BIN,
    });
    try {
      assert.equal(s.endpoints.length, 2);
      assert.equal(s.servedModel, '/models/avtime');
      for (const [k, group] of [
        [0, '0,1'],
        [1, '2,3'],
      ] as const) {
        const rec = JSON.parse(fs.readFileSync(path.join(record, `${basePort + k}.json`), 'utf8'));
        assert.equal(rec.cuda, group);
        assert.ok(rec.keyLength >= 32, 'a generated key, in the environment');
        assert.deepEqual(rec.argv, [
          'serve',
          '/models/avtime',
          '--tensor-parallel-size',
          '2',
          '--max-model-len',
          '65536',
          '--allowed-local-media-path',
          root,
          // SPEC-AVTIME §3: one video and its audio per prompt; the processor cache off (vLLM issue #44538).
          '--limit-mm-per-prompt',
          '{"video": 1, "audio": 1}',
          '--mm-processor-cache-gb',
          '0',
          '--port',
          String(basePort + k),
          '--host',
          '127.0.0.1',
        ]);
      }
      const recs = await readServerRecords(layout);
      assert.equal(recs.target?.vllm_version, '0.18.0');
      assert.match(recs.target!.launch_lines[1], /^CUDA_VISIBLE_DEVICES=2,3 VLLM_API_KEY=<redacted> /);
    } finally {
      await s.fleet.stop();
      delete process.env.RECORD_DIR;
    }
  });

  it("the judge's own launch: --max-model-len 16384 (not the target's 65536), --reasoning-parser qwen3, no media path", async () => {
    const dir = tmpDir('servers');
    const record = path.join(dir, 'record');
    fs.mkdirSync(record);
    const layout = new AvtimeRunLayout(path.join(dir, 'out'), 'r1');
    const basePort = await freePortBase(1);
    process.env.RECORD_DIR = record;
    const s = await startServers({ role: 'judge', layout, model: '/models/judge', groups: [[0, 1]], tp: 2, basePort, vllmBin: BIN });
    try {
      const rec = JSON.parse(fs.readFileSync(path.join(record, `${basePort}.json`), 'utf8'));
      assert.equal(JUDGE_MAX_MODEL_LEN, 16384);
      assert.deepEqual(rec.argv, [
        'serve',
        '/models/judge',
        '--tensor-parallel-size',
        '2',
        '--max-model-len',
        '16384',
        '--reasoning-parser',
        'qwen3',
        '--port',
        String(basePort),
        '--host',
        '127.0.0.1',
      ]);
      assert.equal((await readServerRecords(layout)).judge?.vllm_version, '0.18.0');
    } finally {
      await s.fleet.stop();
      delete process.env.RECORD_DIR;
    }
  });

  it("the judge's context advice names the judge's context and --judge-tp, not the target's (a KV cache too small for 16384)", async () => {
    const layout = new AvtimeRunLayout(path.join(tmpDir('servers'), 'out'), 'r1');
    const basePort = await freePortBase(1);
    process.env.FPSWEEP_STANDIN_FAULTS = 'kvCacheTokens=12000';
    try {
      await assert.rejects(
        startServers({ role: 'judge', layout, model: 'Qwen/Qwen3.6-27B', groups: [[0]], tp: 1, basePort, vllmBin: FAKE_VLLM, startTimeoutMs: 60_000 }),
        (e: Error) => {
          assert.match(e.message, /context of 16384 tokens/);
          assert.match(e.message, /--judge-tp/);
          assert.doesNotMatch(e.message, /--target-tp|65536/);
          return true;
        },
      );
    } finally {
      delete process.env.FPSWEEP_STANDIN_FAULTS;
    }
  });

  it('a stop while the servers load cuts the launch: it throws at once and the loading server is stopped', async () => {
    const layout = new AvtimeRunLayout(path.join(tmpDir('servers'), 'out'), 'r1');
    const basePort = await freePortBase(1);
    // The model "loads" for ten minutes: only the cut can end the launch within the test's timeout.
    process.env.FPSWEEP_STANDIN_FAULTS = 'startupDelayMs=600000';
    const cut = new AbortController();
    try {
      const launch = startServers({ role: 'judge', layout, model: 'Qwen/Qwen3.6-27B', groups: [[0]], tp: 1, basePort, vllmBin: FAKE_VLLM, signal: cut.signal });
      // Wait until the server process runs (the launcher records it once spawned).
      while (readLaunchedServers(layout).length === 0) await new Promise((r) => setTimeout(r, 20));
      const [{ pid }] = readLaunchedServers(layout);
      cut.abort(new Error('stopped (SIGTERM)'));
      await assert.rejects(launch, /launch cut: stopped \(SIGTERM\)/);
      assert.equal(pidAlive(pid), false, 'the loading server was stopped');
      assert.deepEqual(readLaunchedServers(layout), [], 'no server left recorded as running');
    } finally {
      delete process.env.FPSWEEP_STANDIN_FAULTS;
    }
  });

  for (const [role, reported, pin] of [
    ['target', '0.11.0', '≥ 0.18.0'],
    ['target', '0.17.1', '≥ 0.18.0'],
    ['judge', '0.16.0', '≥ 0.17.0'],
  ] as const) {
    it(`a ${role} server reporting vLLM ${reported} is refused (exit 2 words), naming the pin ${pin}; the server is stopped`, async () => {
      const dir = tmpDir('servers');
      const record = path.join(dir, 'record');
      fs.mkdirSync(record);
      const layout = new AvtimeRunLayout(path.join(dir, 'out'), 'r1');
      const basePort = await freePortBase(1);
      process.env.RECORD_DIR = record;
      process.env.RECORD_VLLM_VERSION = reported;
      try {
        await assert.rejects(startServers({ role, layout, model: '/models/m', groups: [[0]], tp: 1, basePort, vllmBin: BIN }), (e: Error) => {
          assert.ok(e instanceof UsageError, 'a usage error: exit 2');
          assert.ok(e.message.includes(`reports vLLM ${reported}; the AVTime ${role} needs vLLM ${pin}`), e.message);
          assert.ok(e.message.includes(`--${role}-vllm-bin`), e.message);
          return true;
        });
        await assert.rejects(fetch(`http://127.0.0.1:${basePort}/health`), 'the refused server is stopped');
      } finally {
        delete process.env.RECORD_DIR;
        delete process.env.RECORD_VLLM_VERSION;
      }
    });
  }

  it('a given endpoint outside the pin is refused too; one inside (0.17.0 for the judge) is taken and recorded', async () => {
    const layout = new AvtimeRunLayout(path.join(tmpDir('servers'), 'out'), 'r1');
    const old = await versionStub('0.11.0');
    const ok = await versionStub('0.17.0');
    try {
      await assert.rejects(
        startServers({ role: 'target', layout, groups: [], tp: 1, basePort: 0, endpoints: [old.url] }),
        /--target-endpoints http.* reports vLLM 0\.11\.0; the AVTime target needs vLLM ≥ 0\.18\.0 \(.*#36319/,
      );
      const s = await startServers({ role: 'judge', layout, groups: [], tp: 1, basePort: 0, endpoints: [ok.url] });
      await s.fleet.stop();
      assert.equal((await readServerRecords(layout)).judge?.vllm_version, '0.17.0');
    } finally {
      await Promise.all([old.close(), ok.close()]);
    }
  });

  it('refuses a group whose size is not the tensor-parallel size', async () => {
    const layout = new AvtimeRunLayout(path.join(tmpDir('servers'), 'out'), 'r1');
    await assert.rejects(
      startServers({ role: 'judge', layout, model: 'j', groups: [[0, 1, 2]], tp: 8, basePort: 9000, vllmBin: BIN }),
      /--judge-gpus group 0,1,2 has 3 GPU\(s\) but --judge-tp is 8/,
    );
  });
});
