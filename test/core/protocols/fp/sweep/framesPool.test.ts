// Issue 45: the CPU path's decode pool is what `run --help` says, min(cores − 1, max(4, ⌈cores / 4⌉)), when
// --decode-workers is not given (it was cores − 1: 15 decodes on a 16-core host, 6.6 s a video against 2.7 s at 4).
// On the GPU path the helpers' videos come on top of the CPU pool (used only while they warm), and the helpers' own
// ready line is the run's probe of the GPU path (no separate Python --probe: ~12 CPU-s a run on the device).
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import * as path from 'node:path';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { framesFor, framesPoolSize } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { quickHeadVideos } from '../../../../../src/core/protocols/fp/sweep/frameSource';
import { fakeFfmpeg, writeShellScript } from '../../../../helpers/fakeGpuTools';
import { withEnv } from './helpers';

describe('fp/sweep: the frame pool a run gets', () => {
  let pkg: string;
  const realCores = os.availableParallelism;
  before(() => {
    pkg = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-pool-'));
  });
  afterEach(() => {
    os.availableParallelism = realCores;
  });
  after(() => rmSync(pkg, { recursive: true, force: true }));

  it('the CPU path: --decode-workers, else the capped default; the GPU path: CPU decodes capped the same while helpers warm', () => {
    assert.deepEqual(
      [2, 4, 8, 16, 32, 96].map((cores) => framesPoolSize(undefined, 0, cores)),
      [1, 3, 4, 4, 8, 24],
    );
    assert.equal(framesPoolSize(15, 0, 16), 15);
    assert.equal(framesPoolSize(undefined, 4, 16), 4);
    // 16 helpers on 4 GPUs: still 4 CPU decodes at once on 16 cores (it was one a helper: 16).
    assert.equal(framesPoolSize(undefined, 16, 16), 4);
    assert.equal(framesPoolSize(8, 8, 16), 4);
    assert.equal(framesPoolSize(undefined, 2, 16), 2);
  });

  it("--frames-on gpu: videos at once are the helpers plus the CPU pool; the helpers' ready line is the probe (no --probe run)", async function () {
    this.timeout(30_000);
    os.availableParallelism = () => 16;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-pool-gpu-'));
    const asked = path.join(dir, 'asked.txt');
    const ready = { ready: true, torch: '2.11.0', pillow: '12.0', gpu: 'NVIDIA H100', jpeg: 'pillow', warm_s: 0 };
    // A Python that writes its arguments down, says it is warm under --serve, and answers nothing else.
    const python = writeShellScript(
      dir,
      'python-serve',
      `echo "$*" >> ${asked}\ncase "$*" in *--serve*) echo '${JSON.stringify(ready)}'; cat > /dev/null ;; esac`,
    );
    const layout = new PackageLayout(pkg);
    try {
      const logged: string[] = [];
      const opts = runOptionsSchema.parse({ package: pkg, framesOn: 'gpu' });
      const env = { FFMPEG_BIN: fakeFfmpeg(dir, true), PYTHON: python, CUDA_VISIBLE_DEVICES: '0' };
      const frames = await withEnv(env, () => framesFor(opts, layout, (l) => logged.push(l)));
      try {
        assert.equal(frames.pipeline.settings.poolSize, 4);
        assert.equal(frames.concurrency, 8, '4 helpers on one GPU + 4 CPU decodes while they warm');
        // The run's quick head stays two rounds of the CPU pool (8), not of all 8 slots: with 16 a 14-video run went
        // longest first, its long videos on the CPU while the helper warmed.
        assert.equal(quickHeadVideos(frames), 8);
        const placement = await frames.settled;
        assert.equal(placement.use, 'gpu');
        assert.equal(placement.probe?.gpu, 'NVIDIA H100');
        assert.equal(placement.probe?.torch, '2.11.0');
        assert.match(logged.join('\n'), /frames on the GPU \(--frames-on gpu; NVIDIA H100: NVDEC/);
      } finally {
        await frames.close();
      }
      const lines = readFileSync(asked, 'utf8').trim().split('\n');
      assert.equal(lines.filter((l) => l.includes('--probe')).length, 0, 'no separate probe process');
      // One helper process takes the GPU's 4 jobs on its threads (one torch import, one CUDA context; issue 45).
      assert.deepEqual(
        lines.filter((l) => l.includes('--serve')).map((l) => l.replace(/^\S+ /, '')),
        ['--serve --jobs 4'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--frames-on gpu where no helper can warm: the CPU path, with the helper's own reason", async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-pool-nogpu-'));
    const python = writeShellScript(dir, 'python-nocuda', `echo '{"ready": false, "warm_error": "RuntimeError: no CUDA GPUs are available"}'; exit 3`);
    try {
      const opts = runOptionsSchema.parse({ package: pkg, framesOn: 'gpu', decodeWorkers: 2 });
      const env = { FFMPEG_BIN: fakeFfmpeg(dir, true), PYTHON: python, CUDA_VISIBLE_DEVICES: '0' };
      const frames = await withEnv(env, () => framesFor(opts, new PackageLayout(pkg)));
      try {
        const placement = await frames.settled;
        assert.equal(placement.use, 'cpu');
        assert.match(placement.reason ?? '', /no GPU frames helper warmed \(RuntimeError: no CUDA GPUs are available\)/);
      } finally {
        await frames.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run --frames-on cpu on a 16-core host, no --decode-workers: 4 videos at once, not 15', async () => {
    os.availableParallelism = () => 16;
    const layout = new PackageLayout(pkg);
    for (const [given, want] of [
      [undefined, 4],
      [15, 15],
    ] as const) {
      const frames = await framesFor(runOptionsSchema.parse({ package: pkg, framesOn: 'cpu', decodeWorkers: given }), layout);
      try {
        assert.equal(frames.concurrency, want, `--decode-workers ${given}`);
        assert.equal(frames.pipeline.settings.poolSize, want);
      } finally {
        await frames.close();
      }
    }
  });
});
