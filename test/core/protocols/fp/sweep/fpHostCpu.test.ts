// Frames × Pixels and the host's CPU (sweep/fpHostCpu.ts, issue 34): the knob the bottleneck line names when the
// cores bind, the GPU path asked of the host at the end of a CPU-bound run, and `--frames-on auto` going by what
// the last pilot on the package recorded (.fpsweep/host_cpu.jsonl) — with a fake hwaccel ffmpeg and a fake
// Python answering the helper's probe (as in frames/gpuFramesOn.test.ts).
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { framesFor } from '../../../../../src/core/protocols/fp/sweep/adapters';
import {
  fpHostCpuKnob,
  framesPathsText,
  OURS_LARGE_SHARE,
  pilotFramesMeasure,
  placementForKnob,
  recordFramesPaths,
} from '../../../../../src/core/protocols/fp/sweep/fpHostCpu';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import type { GpuFramesProbe } from '../../../../../src/core/protocols/fp/frames/gpu/probe';
import type { HostCpuStatus } from '../../../../../src/core/runner/hostCpuStatus';
import { withEnv } from './helpers';
import { fakeFfmpeg, fakeGpuPython, writeShellScript } from '../../../../helpers/fakeGpuTools';

const found: GpuFramesProbe = { ok: true, ffmpegCuda: true, torch: '2.11', torchvision: '0.26', gpu: 'NVIDIA H100', nvjpeg: true, pillow: '12', reasons: [] };
const absent: GpuFramesProbe = { ...found, ok: false, ffmpegCuda: false, reasons: ['ffmpeg has no cuda hwaccel'] };

function status(busyShare: number, oursOfBusy: number | null): HostCpuStatus {
  const busy = busyShare * 16 * 100;
  return {
    cores: 16,
    wallS: 100,
    busyCoreS: busy,
    oursCoreS: oursOfBusy === null ? null : oursOfBusy * busy,
    vllmCoreS: null,
    busyShare,
    bound: busyShare >= 0.9,
    last: null,
  };
}

describe('fp/sweep/fpHostCpu: the host CPU knob and --frames-on auto', () => {
  let dir: string;
  let cudaFfmpeg: string;
  let okPython: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-hostcpu-fp-'));
    cudaFfmpeg = fakeFfmpeg(dir, true);
    okPython = fakeGpuPython(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('our frames a large share: --frames-on gpu where the GPU path is found, the reasons where not, doctor when not probed', () => {
    assert.match(
      fpHostCpuKnob(status(0.96, 0.5), { use: 'cpu', probe: found }),
      /^frames on the GPU: --frames-on gpu \(or auto\); this host has the GPU path \(NVIDIA H100/,
    );
    assert.match(
      fpHostCpuKnob(status(0.96, 0.5), { use: 'cpu', probe: absent }),
      /^more cores for the GPUs: frames cannot go on the GPU here \(ffmpeg has no cuda hwaccel/,
    );
    assert.match(fpHostCpuKnob(status(0.96, 0.5), null), /--frames-on gpu, where `fpsweep doctor` finds NVDEC/);
    assert.match(fpHostCpuKnob(status(0.96, 0.5), { use: 'gpu', probe: found }), /frames are already on the GPU/);
  });

  it("our share small: more cores, never frames on the GPU (vLLM's processes hold the CPU)", () => {
    const knob = fpHostCpuKnob(status(0.96, OURS_LARGE_SHARE - 0.01), { use: 'cpu', probe: found });
    assert.match(knob, /^more cores for the GPUs: our frames and requests are 29% of the busy CPU/);
  });

  it('the end of a CPU-bound run with frames on the CPU asks the host for the GPU path once; otherwise not', async () => {
    await withEnv({ FFMPEG_BIN: cudaFfmpeg, PYTHON: okPython }, async () => {
      const asked = await placementForKnob(status(0.96, 0.5), { use: 'cpu', probe: null });
      assert.equal(asked?.probe?.ok, true);
      assert.match(fpHostCpuKnob(status(0.96, 0.5), asked), /--frames-on gpu \(or auto\)/);
      assert.equal(await placementForKnob(status(0.5, 0.5), null), null, 'not bound: no probe');
      assert.equal((await placementForKnob(status(0.96, 0.1), { use: 'cpu', probe: null }))?.probe, null, 'ours small: no probe');
    });
  });

  describe('--frames-on auto follows the pilot recorded on the package', () => {
    let pkg: string;
    let layout: PackageLayout;
    const record = (lines: object[]) => {
      mkdirSync(layout.stateDir, { recursive: true });
      writeFileSync(layout.hostCpuRecord, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    };
    const line = (runId: string, mode: string, busyCoreS: number) => ({
      v: 1,
      runId,
      mode,
      endedAt: 't',
      wallS: 10,
      cores: 4,
      busyCoreS,
      oursCoreS: busyCoreS / 2,
      vllmCoreS: 1,
    });
    beforeEach(() => {
      pkg = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-auto-'));
      layout = new PackageLayout(pkg);
    });
    afterEach(() => rmSync(pkg, { recursive: true, force: true }));

    async function choose(): Promise<{ use: string; logged: string[] }> {
      const logged: string[] = [];
      const opts = runOptionsSchema.parse({ package: pkg, framesOn: 'auto' });
      const frames = await withEnv({ FFMPEG_BIN: cudaFfmpeg, PYTHON: okPython }, () => framesFor(opts, layout, (l) => logged.push(l)));
      await frames.settled; // the choice once a helper has warmed (or the probe answered)
      await frames.close();
      return { use: frames.placement.use, logged };
    }

    it('a pilot whose cores were ≥ 90 % busy: the GPU path, and the log says the measurement', async () => {
      record([line('p1', 'pilot', 37), line('p1', 'pilot', 38), line('f1', 'full', 5)]);
      const c = await choose();
      assert.equal(c.use, 'gpu');
      assert.match(
        c.logged.join('\n'),
        /frames on the GPU: --frames-on auto, and the pilot found the host's CPU the bound \(pilot p1: host CPU: 94% of 4 cores busy over 20 s/,
      );
    });

    it('a pilot whose cores had room: the CPU path, and why', async () => {
      record([line('p0', 'pilot', 39), line('p1', 'pilot', 20)]);
      const c = await choose();
      assert.equal(c.use, 'cpu');
      assert.match(c.logged.join('\n'), /not the bound \(pilot p1: host CPU: 50% of 4 cores/);
    });

    it('a host without the GPU path: the CPU path, the reason, and what the pilot measured', async () => {
      record([line('p1', 'pilot', 38)]);
      const noCuda = fakeFfmpeg(dir, false);
      const logged: string[] = [];
      const opts = runOptionsSchema.parse({ package: pkg, framesOn: 'auto' });
      const frames = await withEnv({ FFMPEG_BIN: noCuda, PYTHON: okPython }, () => framesFor(opts, layout, (l) => logged.push(l)));
      await frames.close();
      assert.equal(frames.placement.use, 'cpu');
      assert.match(logged.join('\n'), /^frames on the CPU: no GPU path on this host \(.*no cuda hwaccel.*\); pilot p1: host CPU: 95% of 4 cores/);
    });

    const byPath = (cpu: [number, number], gpu: [number, number]) => ({
      cpu: { videos: cpu[0], seconds: cpu[1] },
      gpu: { videos: gpu[0], seconds: gpu[1] },
    });
    const paths = (runId: string, cpu: [number, number], gpu: [number, number]) =>
      writeFileSync(
        layout.framesPathsRecord,
        `${JSON.stringify({ v: 1, runId, mode: 'pilot', endedAt: 't', use: 'gpu', reason: 'r', ...byPath(cpu, gpu) })}\n`,
      );

    it('auto picks the faster path by what the pilot timed: on a CPU-bound host the GPU where it was faster, else the CPU', async () => {
      // CPU-bound pilot (94 % of 4 cores) that made 5 videos on each path: 2.4 s a video on the CPU, 0.9 on the GPU.
      record([line('p1', 'pilot', 37), line('p1', 'pilot', 38)]);
      paths('p1', [5, 12], [5, 4.5]);
      assert.deepEqual(await pilotFramesMeasure(layout), {
        cpuBound: true,
        text: (await pilotFramesMeasure(layout))!.text,
        cpuSPerVideo: 2.4,
        gpuSPerVideo: 0.9,
      });
      const fast = await choose();
      assert.equal(fast.use, 'gpu');
      assert.match(fast.logged.join('\n'), /a video took 0\.90 s on the GPU path against 2\.40 s on the CPU/);
      // The same CPU-bound host where the GPU path was the slower (1.2 s against 0.8): the CPU.
      paths('p1', [5, 4], [5, 6]);
      const slow = await choose();
      assert.equal(slow.use, 'cpu');
      assert.match(slow.logged.join('\n'), /but a video took 1\.20 s on the GPU path against 0\.80 s on the CPU/);
      // A free host (50 % busy) where the GPU path was faster: the CPU all the same.
      record([line('p2', 'pilot', 20)]);
      paths('p2', [5, 12], [5, 4.5]);
      const free = await choose();
      assert.equal(free.use, 'cpu');
      assert.match(free.logged.join('\n'), /not the bound/);
      // Times from another pilot than the one whose host CPU is read are not used.
      record([line('p3', 'pilot', 38)]);
      assert.deepEqual([(await pilotFramesMeasure(layout))?.cpuSPerVideo, (await pilotFramesMeasure(layout))?.gpuSPerVideo], [null, null]);
    });

    it('a run that records where its frames were made: one line a run, read back by the next auto', async () => {
      record([line('p4', 'pilot', 38)]);
      await recordFramesPaths(layout, {
        v: 1,
        runId: 'p4',
        mode: 'pilot',
        endedAt: 't',
        use: 'gpu',
        reason: 'r',
        cpu: { videos: 2, seconds: 3 },
        gpu: { videos: 4, seconds: 2 },
      });
      const m = await pilotFramesMeasure(layout);
      assert.deepEqual([m?.cpuSPerVideo, m?.gpuSPerVideo], [1.5, 0.5]);
      assert.equal(
        framesPathsText({ cpu: { videos: 2, seconds: 3 }, gpu: { videos: 4, seconds: 2 } }),
        'frames: 4 videos on the GPU (0.50 s each), 2 on the CPU (1.50 s each)',
      );
    });

    it('a pilot under auto with nothing measured yet times both paths; a run that sends no frames starts no helper', async () => {
      const logged: string[] = [];
      const pilot = runOptionsSchema.parse({ package: pkg, framesOn: 'auto', pilot: true });
      const frames = await withEnv({ FFMPEG_BIN: cudaFfmpeg, PYTHON: okPython }, () => framesFor(pilot, layout, (l) => logged.push(l)));
      await frames.close();
      assert.equal(frames.placement.use, 'gpu');
      assert.match(logged.join('\n'), /alternate between the GPU/);
      // Nothing to send with frames: not even the probe runs (this Python leaves a mark when it is run at all).
      const mark = path.join(pkg, 'python-ran');
      const marking = writeShellScript(pkg, 'python-mark', `touch ${mark}`);
      const quiet: string[] = [];
      const gpu = runOptionsSchema.parse({ package: pkg, framesOn: 'gpu' });
      const none = await withEnv({ FFMPEG_BIN: cudaFfmpeg, PYTHON: marking }, () => framesFor(gpu, layout, (l) => quiet.push(l), { videosWithFrames: 0 }));
      await none.close();
      assert.equal(none.placement.use, 'cpu');
      assert.equal(existsSync(mark), false);
      assert.match(quiet.join('\n'), /none to make in this run, no GPU frame helper started/);
    });

    it('no pilot recorded: the CPU path', async () => {
      record([line('f1', 'full', 40)]);
      const c = await choose();
      assert.equal(c.use, 'cpu');
      assert.match(c.logged.join('\n'), /no pilot has measured the host yet/);
    });
  });
});
