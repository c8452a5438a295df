// The GPU frame path's node side (frames/gpu/gpuMaker.ts) and its place in the pipeline, with a stand-in helper:
// node runs a script that speaks fp_gpu_frames.py's --serve protocol (a job a line in, a result a line out) and
// writes each asked path. The real helper runs only where CUDA is (bench/gpuFrames on the device).
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GpuFrameMaker } from '../../../../../src/core/protocols/fp/frames/gpu/gpuMaker';
import { FramePipeline } from '../../../../../src/core/protocols/fp/frames/pipeline';

// Writes `w×h` as each output's bytes; a job whose video is 'die' kills the helper; 'short' makes one JPEG too few.
const FAKE_HELPER = `
const fs = require('fs');
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
    fs.writeFileSync(o.path + '.part', o.width + 'x' + o.height);
    fs.renameSync(o.path + '.part', o.path);
    jpegs++;
  }
  process.stdout.write(JSON.stringify({ ok: true, frames: job.frames.length, jpegs, seconds: 0.01, cpu_s: 0.01, encoder: job.encoder }) + '\\n');
});
`;

describe('fp/frames/gpu: the maker and the pipeline on the GPU path (stand-in helper)', () => {
  let dir: string;
  let helperPath: string;
  const tools = () => ({ pythonPath: process.execPath, helperPath, ffmpegPath: 'ffmpeg' });
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
      // Four jobs at once hold four helpers at once: two on each GPU.
      assert.deepEqual((await Promise.all([1, 2, 3, 4].map(gpuOf))).sort(), ['1', '1', '3', '3']);
      assert.equal(await gpuOf(9), 'died');
      const again = await Promise.all([5, 6, 7, 8].map(gpuOf));
      assert.deepEqual(again.sort(), ['1', '1', '3', '3']);
    } finally {
      maker.close();
    }
  });

  it("the pipeline commits the GPU path's JPEGs under the store's names, and keeps nothing when one is missing", async () => {
    const store = path.join(dir, 'store');
    const video = path.join(dir, 'video.mp4');
    writeFileSync(video, 'not decoded here: the helper stands in for NVDEC');
    const maker = new GpuFrameMaker(tools(), 1);
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
      assert.deepEqual(a.ok && a.paths.map((p) => readFileSync(p, 'utf8')), ['398x224', '398x224']);
      const b = done.get('b');
      assert.ok(b.ok && readFileSync(b.paths[0], 'utf8') === '1280x720');
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
});
