// The GPU frame path's node side (frames/gpu/gpuMaker.ts) and its place in the pipeline, with a stand-in helper:
// node runs a script that speaks fp_gpu_frames.py's --serve protocol (a job a line in, a result a line out) and
// writes each asked path. The real helper runs only where CUDA is (bench/gpuFrames on the device).
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GpuFrameMaker } from '../../../../../src/core/protocols/fp/frames/gpu/gpuMaker';
import { FramePipeline } from '../../../../../src/core/protocols/fp/frames/pipeline';
import { makeCodedVideo } from './codedVideo';
import { reads } from './storeReads';
import { sha256Hex } from '../../../../../src/core/protocols/fp/frames/store';

/** Resolves once `ok()` holds (checked every 10 ms): tests wait for the state they caused, never for a time. */
async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 10));
}

// Says it is ready first (as fp_gpu_frames.py once warm): at once, or once the file FAKE_GATE names exists (a slow
// start that a test ends by creating it); FAKE_NEVER_READY=1: says it is not ready and exits (a broken CUDA).
// Writes `w×h` as each output's bytes; a job whose video is 'die' kills the helper; 'short' makes one JPEG too few.
const FAKE_HELPER = `
const fs = require('fs');
if (process.env.FAKE_NEVER_READY === '1') {
  process.stdout.write(JSON.stringify({ ready: false, warm_error: 'no CUDA here' }) + '\\n');
  process.exit(3);
}
const say = () => process.stdout.write(JSON.stringify({ ready: true, warm_s: 0 }) + '\\n');
const gate = process.env.FAKE_GATE;
if (!gate) say();
else {
  const t = setInterval(() => {
    if (fs.existsSync(gate)) {
      clearInterval(t);
      say();
    }
  }, 10);
}
const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const job = JSON.parse(line);
  if (job.video.endsWith('die')) process.exit(3);
  if (job.video.endsWith('whichgpu')) {
    for (const o of job.frames.flatMap((f) => f.outputs)) fs.writeFileSync(o.path, String(process.env.CUDA_VISIBLE_DEVICES));
    process.stdout.write(JSON.stringify({ ok: true, frames: 1, jpegs: 1, seconds: 0, cpu_s: 0 }) + '\\n');
    return;
  }
  let jpegs = 0;
  const outs = job.frames.flatMap((f) => f.outputs);
  for (const o of job.video.endsWith('short') ? outs.slice(1) : outs) {
    // The video's stored frames, where the job names them (the helper's own NVDEC must count exactly these).
    fs.writeFileSync(o.path + '.part', o.width + 'x' + o.height + ('stored_frames' in job ? ' of ' + job.stored_frames : ''));
    fs.renameSync(o.path + '.part', o.path);
    jpegs++;
  }
  process.stdout.write(JSON.stringify({ ok: true, frames: job.frames.length, jpegs, seconds: 0.01, cpu_s: 0.01, encoder: job.encoder }) + '\\n');
});
`;

describe('fp/frames/gpu: the maker and the pipeline on the GPU path (stand-in helper)', () => {
  let dir: string;
  let helperPath: string;
  const tools = (env: NodeJS.ProcessEnv = {}) => ({ pythonPath: process.execPath, helperPath, ffmpegPath: 'ffmpeg', env: { ...process.env, ...env } });
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-gpumaker-'));
    helperPath = path.join(dir, 'helper.js');
    writeFileSync(helperPath, FAKE_HELPER);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs jobs on a bounded pool of long-lived helpers; a dead helper fails its job only and is replaced', async () => {
    const maker = new GpuFrameMaker(tools(), 2);
    try {
      const out = (n: number) => ({ width: 10, height: 8, path: path.join(dir, `m${n}.jpg`) });
      const results = await Promise.all([1, 2, 3].map((n) => maker.make({ video: `v${n}`, width: 20, height: 16, frames: [{ index: n, outputs: [out(n)] }] })));
      assert.deepEqual(
        results.map((r) => r.ok && r.jpegs),
        [1, 1, 1],
      );
      assert.equal(readFileSync(path.join(dir, 'm2.jpg'), 'utf8'), '10x8');
      const dead = await maker.make({ video: 'die', width: 20, height: 16, frames: [{ index: 0, outputs: [out(9)] }] });
      assert.equal(dead.ok, false);
      assert.match(!dead.ok ? dead.error : '', /helper exited/);
      const after = await maker.make({ video: 'v4', width: 20, height: 16, frames: [{ index: 4, outputs: [out(4)] }] });
      assert.equal(after.ok, true);
    } finally {
      maker.close();
    }
  });

  it('spreads its helpers over the GPUs it is given, a replacement going where one is missing', async () => {
    const maker = new GpuFrameMaker(tools(), 4, ['1', '3']);
    const gpuOf = async (n: number) => {
      const p = path.join(dir, `g${n}.txt`);
      const outputs = [{ width: 2, height: 2, path: p }];
      const r = await maker.make({ video: n === 9 ? 'die' : 'whichgpu', width: 2, height: 2, frames: [{ index: 0, outputs }] });
      return r.ok ? readFileSync(p, 'utf8') : 'died';
    };
    try {
      maker.warm();
      await until(() => maker.readyCount === 4);
      // Four jobs at once hold four warm helpers at once: two on each GPU.
      assert.deepEqual((await Promise.all([1, 2, 3, 4].map(gpuOf))).sort(), ['1', '1', '3', '3']);
      assert.equal(await gpuOf(9), 'died');
      // The warm pool is kept full: a replacement starts at once, on the GPU that lost one.
      await until(() => maker.readyCount === 4);
      const again = await Promise.all([5, 6, 7, 8].map(gpuOf));
      assert.deepEqual(again.sort(), ['1', '1', '3', '3']);
    } finally {
      maker.close();
    }
  });

  it("the pipeline commits the GPU path's JPEGs under the store's names (its job names the stored frames), and keeps nothing when one is missing", async () => {
    const store = path.join(dir, 'store');
    const video = path.join(dir, 'video.mp4');
    writeFileSync(video, 'not decoded here: the helper stands in for NVDEC');
    const maker = new GpuFrameMaker(tools(), 1);
    maker.warm();
    await until(() => maker.readyCount === 1);
    const pipeline = new FramePipeline({ storeDir: store, poolSize: 1 }, maker);
    try {
      const meta = { width: 1280, height: 720, n_frames: 100 };
      const job = {
        hash: 'h1',
        videoPath: video,
        meta,
        requests: [
          { key: 'a', indices: [3, 7], width: 398, height: 224 },
          { key: 'b', indices: [7], width: 1280, height: 720 },
        ],
      };
      const done = await pipeline.prepare(job);
      const a = done.get('a');
      assert.ok(a.ok);
      assert.deepEqual(a.ok && a.paths.map((p) => readFileSync(p, 'utf8')), ['398x224 of 100', '398x224 of 100']);
      // Read and hashed once, when committed: its first send (a file:// URL) is checked by identity (issue 45).
      const sent = await reads(async () => (await pipeline.store()).frameDigests(a.ok ? a.paths : []));
      assert.deepEqual(sent, { result: [sha256Hex(Buffer.from('398x224 of 100')), sha256Hex(Buffer.from('398x224 of 100'))], read: 0 });
      const b = done.get('b');
      assert.ok(b.ok && readFileSync(b.paths[0], 'utf8') === '1280x720 of 100');
      done.release();
      const short = path.join(dir, 'video.short');
      writeFileSync(short, '');
      const failed = await pipeline.prepare({ ...job, hash: 'h2', videoPath: short });
      const r = failed.get('a');
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.message : '', /GPU frames: 2 of 3 JPEGs made/);
      const left = existsSync(path.join(store, 'h2')) ? readdirSync(path.join(store, 'h2')) : [];
      assert.deepEqual(
        left.filter((f) => f.endsWith('.jpg')),
        [],
      );
    } finally {
      pipeline.close();
    }
  });
  it('warm() starts every helper before any job; takeReady hands out only a warm, idle one and never waits', async () => {
    const gate = path.join(dir, 'gate-warm');
    const maker = new GpuFrameMaker(tools({ FAKE_GATE: gate }), 2);
    try {
      maker.warm();
      assert.equal(maker.takeReady(), null, 'still warming: no helper to take');
      writeFileSync(gate, '');
      await until(() => maker.readyCount === 2);
      const a = maker.takeReady();
      const b = maker.takeReady();
      assert.ok(a && b);
      assert.equal(maker.takeReady(), null, 'both taken');
      const out = { width: 4, height: 2, path: path.join(dir, 'w1.jpg') };
      const r = await maker.makeWith(a, { video: 'v', width: 8, height: 4, frames: [{ index: 0, outputs: [out] }] });
      assert.equal(r.ok && r.jpegs, 1);
      assert.ok(maker.takeReady(), 'given back once it answered');
      assert.equal(maker.warmSeconds.length, 2);
    } finally {
      maker.close();
    }
  });

  it('a helper that never warms is replaced a bounded number of times, and no video waits for it', async () => {
    const maker = new GpuFrameMaker(tools({ FAKE_NEVER_READY: '1' }), 2);
    try {
      maker.warm();
      // Each start fails: 2 at first, then up to `helpers` replacements; after that none is alive.
      await until(() => (maker as unknown as { live(): number }).live() === 0 && (maker as unknown as { warmFailures: number }).warmFailures > 2);
      assert.equal(maker.readyCount, 0);
      assert.equal(maker.takeReady(), null);
    } finally {
      maker.close();
    }
  });

  it('a video whose turn comes while the helpers warm is made on the CPU at once; once one is warm, the next goes to the GPU', async function () {
    this.timeout(60_000);
    const gate = path.join(dir, 'gate-pipeline');
    const store = path.join(dir, 'store-warm');
    const videos = path.join(dir, 'videos-warm');
    const [v1, v2] = await Promise.all([
      makeCodedVideo(videos, 'w1', { width: 320, height: 240, nFrames: 6 }),
      makeCodedVideo(videos, 'w2', { width: 320, height: 240, nFrames: 6 }),
    ]);
    const maker = new GpuFrameMaker(tools({ FAKE_GATE: gate }), 1);
    maker.warm();
    const pipeline = new FramePipeline({ storeDir: store, poolSize: 1 }, maker);
    const job = (v: typeof v1) => ({ hash: v.hash, videoPath: v.videoPath, meta: v.meta, requests: [{ key: 'a', indices: [1, 4], width: 160, height: 120 }] });
    try {
      // The helper is not warm (its gate is shut): the first video does not wait for it.
      const first = await pipeline.prepare(job(v1));
      const a = first.get('a');
      assert.ok(a.ok);
      assert.equal(
        readFileSync(a.ok ? a.paths[0] : '')
          .subarray(0, 2)
          .toString('hex'),
        'ffd8',
        'a real JPEG: the CPU path',
      );
      first.release();
      assert.deepEqual((await pipeline.stats()).byPath.gpu.videos, 0);
      writeFileSync(gate, '');
      await until(() => maker.readyCount === 1);
      const second = await pipeline.prepare(job(v2));
      const b = second.get('a');
      assert.ok(b.ok);
      assert.equal(readFileSync(b.ok ? b.paths[0] : '', 'utf8'), '160x120 of 6', "the stand-in helper's bytes: the GPU path");
      second.release();
      const byPath = (await pipeline.stats()).byPath;
      assert.deepEqual([byPath.cpu.videos, byPath.gpu.videos], [1, 1]);
    } finally {
      pipeline.close();
    }
  });

  it('a helper that warms takes a video at once, even while every CPU slot is busy (issue 45)', async function () {
    this.timeout(60_000);
    const gate = path.join(dir, 'gate-busy');
    const video = await makeCodedVideo(path.join(dir, 'videos-busy'), 'b1', { width: 320, height: 240, nFrames: 4 });
    const maker = new GpuFrameMaker(tools({ FAKE_GATE: gate }), 1);
    maker.warm();
    const pipeline = new FramePipeline({ storeDir: path.join(dir, 'store-busy'), poolSize: 1 }, maker);
    // The one CPU slot is taken (a long CPU video would hold it so), and kept for the whole test.
    const heldSlot = await (pipeline as unknown as { pool: { acquire(): Promise<() => void> } }).pool.acquire();
    try {
      const job = { hash: video.hash, videoPath: video.videoPath, meta: video.meta, requests: [{ key: 'a', indices: [1], width: 160, height: 120 }] };
      const pending = pipeline.prepare(job);
      writeFileSync(gate, '');
      // On the old pipeline this video waited for the CPU slot (never freed here): it would not be made.
      const done = await pending;
      const a = done.get('a');
      assert.equal(readFileSync(a.ok ? a.paths[0] : '', 'utf8'), '160x120 of 4', "the stand-in helper's bytes: the GPU path");
      done.release();
      const byPath = (await pipeline.stats()).byPath;
      assert.deepEqual([byPath.cpu.videos, byPath.gpu.videos], [0, 1]);
    } finally {
      heldSlot();
      pipeline.close();
    }
  });

  it('once every helper is warm, a video waits for the next free helper rather than take a CPU slot', async function () {
    this.timeout(60_000);
    const video = await makeCodedVideo(path.join(dir, 'videos-wait'), 'q1', { width: 320, height: 240, nFrames: 4 });
    const maker = new GpuFrameMaker(tools(), 1);
    maker.warm();
    await until(() => maker.allWarm);
    const pipeline = new FramePipeline({ storeDir: path.join(dir, 'store-wait'), poolSize: 1 }, maker);
    const busy = maker.takeReady(); // the one helper is making another video
    assert.ok(busy);
    try {
      const job = { hash: video.hash, videoPath: video.videoPath, meta: video.meta, requests: [{ key: 'a', indices: [2], width: 160, height: 120 }] };
      const pending = pipeline.prepare(job);
      // The CPU slot is free, but the video waits: on the old pipeline it went to the CPU (a real JPEG).
      await until(() => (maker as unknown as { waiting: unknown[] }).waiting.length === 1);
      maker.giveBack(busy);
      const done = await pending;
      const a = done.get('a');
      assert.equal(readFileSync(a.ok ? a.paths[0] : '', 'utf8'), '160x120 of 4');
      done.release();
      const byPath = (await pipeline.stats()).byPath;
      assert.deepEqual([byPath.cpu.videos, byPath.gpu.videos], [0, 1]);
    } finally {
      pipeline.close();
    }
  });

  it('waitReady: cancelled, the helper it would have had goes to the next; a closed maker answers null', async () => {
    const maker = new GpuFrameMaker(tools(), 1);
    maker.warm();
    await until(() => maker.readyCount === 1);
    const held = maker.takeReady();
    assert.ok(held);
    const first = maker.waitReady();
    const second = maker.waitReady();
    first.cancel();
    maker.giveBack(held);
    const got = await second.lease;
    assert.ok(got, 'the cancelled wait did not take the helper');
    const third = maker.waitReady();
    maker.close();
    assert.equal(await third.lease, null);
    assert.equal(await maker.waitReady().lease, null);
  });

  it('jobsPerHelper: one process takes several jobs at once (--jobs N), its answers paired by id in any order', async () => {
    const starts = path.join(dir, 'starts-jobs.txt');
    // Holds each job until it holds --jobs of them, then answers them last first (ids echoed), as a threaded helper
    // whose later job ends first would; it writes its arguments down when it starts.
    const concurrent = path.join(dir, 'helper-jobs.js');
    writeFileSync(
      concurrent,
      `const fs = require('fs');
fs.appendFileSync(${JSON.stringify(starts)}, process.argv.slice(2).join(' ') + '\\n');
const n = Number(process.argv[process.argv.indexOf('--jobs') + 1] || 1);
process.stdout.write(JSON.stringify({ ready: true, jobs: n }) + '\\n');
let held = [];
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  held.push(JSON.parse(line));
  if (held.length < n) return;
  for (const job of held.reverse()) {
    for (const o of job.frames.flatMap((f) => f.outputs)) fs.writeFileSync(o.path, job.video);
    process.stdout.write(JSON.stringify({ id: job.id, ok: true, frames: 1, jpegs: 1, seconds: 0, cpu_s: 0 }) + '\\n');
  }
  held = [];
});
`,
    );
    const maker = new GpuFrameMaker({ ...tools(), helperPath: concurrent }, 4, [], 2);
    try {
      assert.equal(maker.processes, 2);
      maker.warm();
      await until(() => maker.readyCount === 4);
      const outs = [1, 2, 3, 4].map((n) => path.join(dir, `jobs${n}.txt`));
      const results = await Promise.all(
        outs.map((p, k) => maker.make({ video: `video${k + 1}`, width: 2, height: 2, frames: [{ index: 0, outputs: [{ width: 2, height: 2, path: p }] }] })),
      );
      assert.deepEqual(
        results.map((r) => r.ok),
        [true, true, true, true],
      );
      // Each answer went to its own job: each output holds its own video's name.
      assert.deepEqual(
        outs.map((p) => readFileSync(p, 'utf8')),
        ['video1', 'video2', 'video3', 'video4'],
      );
      const lines = readFileSync(starts, 'utf8').trim().split('\n');
      assert.deepEqual(
        lines,
        [`--serve --jobs 2`, `--serve --jobs 2`].map((l) => l),
        'two processes of two jobs each, not four',
      );
    } finally {
      maker.close();
    }
  });

  it("'alternate' (a pilot timing both paths) sends every other video to the GPU", async function () {
    this.timeout(60_000);
    const store = path.join(dir, 'store-alt');
    const videos = path.join(dir, 'videos-alt');
    const vs = await Promise.all([0, 1, 2, 3].map((k) => makeCodedVideo(videos, `a${k}`, { width: 320, height: 240, nFrames: 4 })));
    const maker = new GpuFrameMaker(tools(), 1);
    maker.share = 'alternate';
    maker.warm();
    await until(() => maker.readyCount === 1);
    const pipeline = new FramePipeline({ storeDir: store, poolSize: 1 }, maker);
    try {
      for (const v of vs) {
        const done = await pipeline.prepare({
          hash: v.hash,
          videoPath: v.videoPath,
          meta: v.meta,
          requests: [{ key: 'a', indices: [2], width: 160, height: 120 }],
        });
        done.release();
      }
      const byPath = (await pipeline.stats()).byPath;
      assert.deepEqual([byPath.cpu.videos, byPath.gpu.videos], [2, 2]);
      assert.ok(byPath.cpu.seconds > 0 && byPath.gpu.seconds > 0);
    } finally {
      pipeline.close();
    }
  });
});
