// The launcher with the stand-in as VLLM_BIN: launch lines, key handling, health wait, a refused
// context, a crash noticed and restarted by the monitor, and --endpoints.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PackageLayout } from '../../../src/core/protocols/fp/package/layout';
import { fpChatRequest, fpLaunchOptions } from '../../../src/core/protocols/fp/serving/fpServing';
import { VllmClient } from '../../../src/core/serving/client';
import { checkHealth } from '../../../src/core/serving/health';
import { ContextLengthError, useEndpoints, type ServerStateEvent } from '../../../src/core/serving/launcher';
import { launchServers } from '../../../src/core/protocols/fp/serving/launchServers';
import { MODEL } from '../../../src/core/protocols/fp/rules/constants';
import { writeServerRecords, readServerRecords } from '../../../src/core/serving/leftovers';
import { buildStandin, FAKE_VLLM, freePortBase, startStandin, tmpDir } from './helpers';
import { waitFor } from '../../helpers/waitFor';

const FAST = { intervalMs: 200, failThreshold: 2, healthTimeoutMs: 1_000, startTimeoutMs: 20_000, killGraceMs: 1_000 };

/** The first event `pred` accepts, waited for up to `ms`. */
function waitForEvent(events: ServerStateEvent[], pred: (e: ServerStateEvent) => boolean, ms: number): Promise<ServerStateEvent> {
  return waitFor(
    () => events.find(pred),
    ms,
    () => `no such event; got ${JSON.stringify(events.map((x) => [x.id, x.state]))}`,
  );
}

describe('launcher', function () {
  this.timeout(90_000);
  before(() => buildStandin());

  it('starts one server per GPU, records the launch lines with the key redacted, and stops them', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(2);
    const logLines: string[] = [];
    const fleet = await launchServers({
      layout,
      ...fpLaunchOptions(layout),
      gpus: [0, 1],
      maxSeqs: 4,
      gpuUtil: 0.85,
      vllmBin: FAKE_VLLM,
      basePort,
      ...FAST,
      env: { FPSWEEP_STANDIN_FAULTS: 'startupDelayMs=700' },
      log: (l) => logLines.push(l),
    });
    try {
      assert.deepEqual(
        fleet.handles.map((h) => [h.id, h.url, h.state]),
        [
          ['gpu0', `http://127.0.0.1:${basePort}`, 'up'],
          ['gpu1', `http://127.0.0.1:${basePort + 1}`, 'up'],
        ],
      );
      const keys = fleet.handles.map((h) => h.apiKey!);
      assert.ok(keys[0].length >= 32 && keys[0] !== keys[1], 'a fresh random key per server');
      const params = fs.readFileSync(layout.launchParams, 'utf8');
      for (const h of fleet.handles) {
        assert.ok(params.includes(h.launchLine!));
        assert.equal(
          h.launchLine,
          `CUDA_VISIBLE_DEVICES=${h.gpu} VLLM_API_KEY=<redacted> ${FAKE_VLLM} serve ${MODEL} --revision 0c351dd01ed87e9c1b53cbc748cba10e6187ff3b ` +
            `--max-model-len 65536 --limit-mm-per-prompt '{"image": 1024}' --max-num-seqs 4 --gpu-memory-utilization 0.85 ` +
            `--port ${basePort + h.gpu!} --host 127.0.0.1 --allowed-local-media-path ${layout.frameStoreDir}`,
        );
      }
      for (const k of keys) {
        assert.ok(!params.includes(k), 'no key in launch_params.txt');
        for (const g of [0, 1]) assert.ok(!fs.readFileSync(layout.vllmLog(g), 'utf8').includes(k), 'no key in the server logs');
        assert.ok(!logLines.join('\n').includes(k), 'no key in the runner log');
      }
      assert.match(fs.readFileSync(layout.vllmLog(1), 'utf8'), /Application startup complete/);
      // The key works, and only the right key works.
      const c = new VllmClient({ url: fleet.handles[1].url, apiKey: keys[1] }, { maxRetries: 0 });
      const wrong = new VllmClient({ url: fleet.handles[1].url, apiKey: keys[0] }, { maxRetries: 0 });
      const ok = await c.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [] }));
      const no = await wrong.chat(fpChatRequest({ model: MODEL, promptText: 'q', images: [] }));
      await c.close();
      await wrong.close();
      assert.ok(ok.ok);
      assert.ok(!no.ok && no.status === 401);
    } finally {
      await fleet.stop();
    }
    assert.ok(fleet.handles.every((h) => h.state === 'down'));
    for (const h of fleet.handles) assert.equal((await checkHealth(h.url, 500)).ok, false, 'stopped servers are gone');
  });

  it('sizes the front end from the host: --mm-processor-cache-gb from RAM, VLLM_MEDIA_LOADING_THREAD_COUNT and OMP_NUM_THREADS from cores', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(2);
    // 256 GiB over 2 servers: a quarter of it, counted twice a server = 16 GiB each; 64 cores / 2 servers = 32 threads;
    // torch threads: (64 − 2 engine cores − 0 decodes) / 2, capped at the 4 measured.
    const fleet = await launchServers({
      layout,
      ...fpLaunchOptions(layout),
      gpus: [0, 1],
      maxSeqs: 4,
      gpuUtil: 0.85,
      vllmBin: FAKE_VLLM,
      basePort,
      ...FAST,
      host: { ramBytes: 256 * 1024 ** 3, cores: 64 },
    });
    try {
      assert.deepEqual(
        fleet.handles.map((h) => h.state),
        ['up', 'up'],
      );
      for (const h of fleet.handles) {
        assert.match(h.launchLine!, /^CUDA_VISIBLE_DEVICES=\d VLLM_API_KEY=<redacted> VLLM_MEDIA_LOADING_THREAD_COUNT=32 OMP_NUM_THREADS=4 \S+ serve /);
        assert.ok(h.launchLine!.endsWith(`--allowed-local-media-path ${layout.frameStoreDir} --mm-processor-cache-gb 16`), h.launchLine!);
        assert.ok(fs.readFileSync(layout.launchParams, 'utf8').includes(h.launchLine!));
      }
    } finally {
      await fleet.stop();
    }
  });

  it('stops with a clear error when a server cannot hold the context, and never lowers it', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(2);
    const t0 = Date.now();
    await assert.rejects(
      launchServers({
        layout,
        ...fpLaunchOptions(layout),
        gpus: [0, 1],
        maxSeqs: 32,
        gpuUtil: 0.85,
        vllmBin: FAKE_VLLM,
        basePort,
        ...FAST,
        // GPU 1 is the small one; GPU 0 is still loading (60 s) and must be stopped at once too.
        env: { FPSWEEP_STANDIN_FAULTS_0: 'startupDelayMs=60000', FPSWEEP_STANDIN_FAULTS_1: 'kvCacheTokens=40000,startupDelayMs=300' },
      }),
      (err: Error) => {
        assert.ok(err instanceof ContextLengthError, String(err));
        assert.match(err.message, /gpu1: vLLM cannot serve the protocol's context of 65536 tokens/);
        assert.match(err.message, /KV cache is needed, which is larger than the available KV cache memory/);
        assert.match(err.message, /never lowered/);
        assert.match(err.message, /GPU_UTIL \(now 0\.85\)/);
        return true;
      },
    );
    assert.ok(Date.now() - t0 < 12_000, 'the loading server was not waited for');
    const params = fs.readFileSync(layout.launchParams, 'utf8');
    assert.equal((params.match(/--max-model-len 65536/g) ?? []).length, 2, 'launched once each, never again with less');
    assert.match((await checkHealth(`http://127.0.0.1:${basePort}`, 500)).detail, /ECONNREFUSED/, 'the loading server was stopped too');
  });

  it('notices a crashed server, reads the OOM in its log, restarts it and cuts its in-flight work', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(1);
    const events: ServerStateEvent[] = [];
    const fleet = await launchServers({
      layout,
      ...fpLaunchOptions(layout),
      gpus: [0],
      maxSeqs: 8,
      gpuUtil: 0.85,
      vllmBin: FAKE_VLLM,
      basePort,
      ...FAST,
      maxRestarts: 2,
      env: {
        FPSWEEP_STANDIN_FAULTS: 'crashAfter=2,crashOom=1',
        FPSWEEP_STANDIN_CRASH_ONCE_FILE: path.join(layout.root, 'crashed-once'),
        FPSWEEP_STANDIN_LATENCY: 'a=0.3,b=0',
      },
    });
    fleet.on('state', (e) => events.push(e));
    const h = fleet.handles[0];
    const firstPid = h.pid;
    const signal = h.upSignal;
    const c = new VllmClient({ url: h.url, apiKey: h.apiKey }, { maxRetries: 0 });
    try {
      const body = (i: number) => fpChatRequest({ model: MODEL, promptText: `q${i}`, images: [] });
      const one = await c.chat(body(1));
      assert.ok(one.ok, JSON.stringify(one));
      // Two more at once: the later arrival (request 3) kills the engine while the other is in flight.
      const both = await Promise.all([c.chat(body(2), signal), c.chat(body(3), signal)]);
      for (const r of both) assert.ok(!r.ok && r.kind === 'server_down', JSON.stringify(r));
      const restarting = await waitForEvent(events, (e) => e.state === 'restarting', 10_000);
      assert.equal(restarting.previous, 'up');
      assert.equal(restarting.oom, true);
      assert.match(restarting.message, /process exited .*CUDA out of memory.*lower MAX_SEQS \(now 8\).*restart 1\/2/);
      assert.ok(signal.aborted, 'the old incarnation signal is aborted');
      await waitForEvent(events, (e) => e.state === 'up' && e.previous === 'restarting', 20_000);
      assert.equal(h.restarts, 1);
      assert.notEqual(h.pid, firstPid);
      assert.ok(!h.upSignal.aborted);
      const after = await c.chat(body(4), h.upSignal);
      assert.ok(after.ok, JSON.stringify(after));
      assert.match(fs.readFileSync(layout.launchParams, 'utf8'), /gpu0 restart 1\n/);
    } finally {
      await c.close();
      await fleet.stop();
    }
  });

  it('declares a hung server down after the restart budget, with the reason', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(1);
    const events: ServerStateEvent[] = [];
    const fleet = await launchServers({
      layout,
      ...fpLaunchOptions(layout),
      gpus: [0],
      maxSeqs: 8,
      gpuUtil: 0.85,
      vllmBin: FAKE_VLLM,
      basePort,
      ...FAST,
      maxRestarts: 0,
    });
    fleet.on('state', (e) => events.push(e));
    try {
      process.kill(fleet.handles[0].pid!, 'SIGSTOP'); // alive but not answering
      const down = await waitForEvent(events, (e) => e.state === 'down', 15_000);
      assert.match(down.message, /\/health failed 2 times in a row.*restart budget \(0\) used up/);
      assert.equal(down.oom, false);
      assert.equal(down.final, true, 'a launched server that used up its restarts is down for good');
    } finally {
      const pid = fleet.handles[0].pid;
      if (pid)
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          /* gone */
        }
      await fleet.stop();
    }
  });

  it('uses servers given with --endpoints without launching, and follows their health', async () => {
    const s = await startStandin(['--served-model-name', 'given'], { VLLM_API_KEY: 'remote-key' });
    const events: ServerStateEvent[] = [];
    const fleet = await useEndpoints([s.url, 'http://127.0.0.1:9'], { apiKey: 'remote-key', ...FAST });
    fleet.on('state', (e) => events.push(e));
    try {
      assert.deepEqual(
        fleet.handles.map((h) => [h.url, h.state, h.launchLine]),
        [
          [s.url, 'up', null],
          ['http://127.0.0.1:9', 'down', null],
        ],
      );
      const c = new VllmClient({ url: fleet.handles[0].url, apiKey: fleet.handles[0].apiKey }, { maxRetries: 0 });
      const r = await c.chat(fpChatRequest({ model: 'given', promptText: 'q', images: [] }));
      await c.close();
      assert.ok(r.ok);
      await s.stop();
      const down = await waitForEvent(events, (e) => e.url === s.url && e.state === 'down', 10_000);
      assert.match(down.message, /\/health failed 2 time/);
      assert.equal(down.final, false, 'a given endpoint that is down may answer again');
    } finally {
      await fleet.stop();
    }
    await assert.rejects(useEndpoints(['http://127.0.0.1:9'], FAST), /none of .* answers GET \/health/);
  });
  it('stops a server a killed run left on its port, then launches', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(1);
    const { execa } = await import('execa');
    // What a worker killed with -9 leaves: a live server on the port, recorded in .fpsweep/servers.json.
    const orphan = execa(FAKE_VLLM, ['serve', MODEL, '--port', String(basePort), '--host', '127.0.0.1'], { reject: false });
    await waitFor(async () => (await checkHealth(`http://127.0.0.1:${basePort}`, 500)).ok, 30_000, `the orphan server on ${basePort} answering /health`, {
      pollMs: 100,
    });
    writeServerRecords(layout, [{ id: 'gpu0', pid: orphan.pid!, port: basePort, startedAt: 'earlier' }]);
    const lines: string[] = [];
    const fleet = await launchServers({
      layout,
      ...fpLaunchOptions(layout),
      gpus: [0],
      maxSeqs: 4,
      gpuUtil: 0.85,
      vllmBin: FAKE_VLLM,
      basePort,
      ...FAST,
      log: (l) => lines.push(l),
    });
    try {
      const r = await orphan;
      assert.ok(r.exitCode === 0 || r.signal !== undefined, 'the leftover was stopped (it exits 0 on SIGTERM)');
      assert.match(lines.join('\n'), new RegExp(`stopped gpu0 \\(pid ${orphan.pid}, port ${basePort}\\) left running by an earlier run`));
      assert.equal(fleet.handles[0].state, 'up');
      assert.deepEqual(
        readServerRecords(layout).map((x) => [x.id, x.pid, x.port]),
        [['gpu0', fleet.handles[0].pid, basePort]],
      );
    } finally {
      await fleet.stop();
    }
    assert.deepEqual(readServerRecords(layout), []);
  });
  it('says so when the vLLM executable does not exist', async () => {
    const layout = new PackageLayout(tmpDir('pkg'));
    const basePort = await freePortBase(1);
    await assert.rejects(
      launchServers({ layout, ...fpLaunchOptions(layout), gpus: [0], maxSeqs: 4, gpuUtil: 0.85, vllmBin: '/nonexistent/vllm', basePort, ...FAST }),
      /`\/nonexistent\/vllm` was not found: install vLLM 0\.11 or point VLLM_BIN at it/,
    );
  });
});
