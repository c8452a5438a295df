// --frames-on (issue 34): the GPU path is used only where the host has it, asked of the host itself. A fake ffmpeg
// lists or leaves out `cuda` in `-hwaccels`; a fake Python answers the helper's probe, or the real python3 runs the
// real helper (no CUDA torch here: the CPU path stays, with the reason).
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chooseFramesOn, parseFramesOn, type FramesMeasure } from '../../../../../src/core/protocols/fp/frames/gpu/framesOn';
import { defaultGpuHelperPath, hwaccelsListCuda, probeGpuFrames } from '../../../../../src/core/protocols/fp/frames/gpu/probe';
import { FP_BOTTLENECK_WORDS } from '../../../../../src/core/protocols/fp/sweep/fpBottleneckWords';
import { fakeFfmpeg, fakeGpuPython, HWACCELS_HEADER, writeShellScript } from '../../../../helpers/fakeGpuTools';
import {
  checkGpuFrames,
  CPU_PATH_S_PER_720P_VIDEO,
  GPU_PATH_S_PER_720P_VIDEO,
  SWEEP_CPU_S_PER_VIDEO,
  SWEEP_MODES,
  SWEEP_RESULTS_FILE,
} from '../../../../../src/core/protocols/fp/doctor/gpuFrames';

/** A pilot's measurement: its host CPU bound or not, and each path's seconds a video (null: not timed). */
const pilotSaw = (cpuBound: boolean, cpuSPerVideo: number | null = null, gpuSPerVideo: number | null = null): FramesMeasure => ({
  cpuBound,
  text: `pilot p1: host CPU ${cpuBound ? 'bound' : 'free'}`,
  cpuSPerVideo,
  gpuSPerVideo,
});

describe('fp/frames/gpu: --frames-on and the probe', () => {
  let dir: string;
  const script = (name: string, body: string) => writeShellScript(dir, name, body);
  const helperPath = defaultGpuHelperPath();
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-gpuframes-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const withCuda = () => fakeFfmpeg(dir, true);
  const withoutCuda = () => fakeFfmpeg(dir, false);
  const okPython = () => fakeGpuPython(dir);

  it('reads cuda from the -hwaccels list only (its header line is not a method)', () => {
    assert.equal(hwaccelsListCuda(`${HWACCELS_HEADER}\nvdpau\ncuda\n`), true);
    assert.equal(hwaccelsListCuda(`${HWACCELS_HEADER}\nvdpau\ncuda_extra\n`), false);
    assert.equal(hwaccelsListCuda('cuda\n'), false);
  });

  it('the helper ships under resources/python', () => {
    assert.match(helperPath, /resources[\\/]python[\\/]fp_gpu_frames\.py$/);
  });

  it('an ffmpeg without cuda keeps the CPU path, even asked for gpu, and says why', async () => {
    const found = await probeGpuFrames({ ffmpegPath: withoutCuda(), pythonPath: okPython(), helperPath });
    assert.equal(found.ok, false);
    assert.equal(found.ffmpegCuda, false);
    assert.match(found.reasons.join(' '), /no cuda hwaccel/);
    const choice = chooseFramesOn('gpu', found, pilotSaw(true));
    assert.equal(choice.use, 'cpu');
    assert.match(choice.reason, /no GPU path on this host.*cuda/);
  });

  it('cuda in ffmpeg and CUDA torch: gpu uses it; auto follows the pilot; cpu stays cpu', async () => {
    const found = await probeGpuFrames({ ffmpegPath: withCuda(), pythonPath: okPython(), helperPath });
    assert.deepEqual(found.reasons, []);
    assert.equal(found.ok, true);
    assert.equal(found.gpu, 'NVIDIA H100');
    assert.equal(chooseFramesOn('gpu', found, null).use, 'gpu');
    assert.equal(chooseFramesOn('auto', found, pilotSaw(true)).use, 'gpu');
    assert.equal(chooseFramesOn('auto', found, pilotSaw(false)).use, 'cpu');
    assert.match(chooseFramesOn('auto', found, null).reason, /no pilot/);
    assert.equal(chooseFramesOn('cpu', found, pilotSaw(true)).use, 'cpu');
  });

  it('auto decides by what the pilot timed: the GPU path only on a CPU-bound host where it was faster a video', async () => {
    const found = await probeGpuFrames({ ffmpegPath: withCuda(), pythonPath: okPython(), helperPath });
    // A CPU-bound host where a video took 0.9 s on the GPU path against 2.4 s on the CPU: the GPU, with the figures.
    const bound = chooseFramesOn('auto', found, pilotSaw(true, 2.4, 0.9));
    assert.equal(bound.use, 'gpu');
    assert.match(bound.reason, /CPU the bound \(pilot p1: host CPU bound\); a video took 0\.90 s on the GPU path against 2\.40 s on the CPU; NVIDIA H100/);
    // The same host where the GPU path was the slower: the CPU, and why.
    const slower = chooseFramesOn('auto', found, pilotSaw(true, 0.8, 1.1));
    assert.equal(slower.use, 'cpu');
    assert.match(slower.reason, /but a video took 1\.10 s on the GPU path against 0\.80 s on the CPU/);
    // A free host keeps the CPU path, whatever the GPU path's time.
    const free = chooseFramesOn('auto', found, pilotSaw(false, 2.4, 0.9));
    assert.equal(free.use, 'cpu');
    assert.match(free.reason, /not the bound/);
    // A pilot with no measurement yet times both paths; a full run with none stays on the CPU.
    const first = chooseFramesOn('auto', found, null, true);
    assert.deepEqual([first.use, first.measure], ['gpu', true]);
    assert.match(first.reason, /alternate between the GPU .* and the CPU/);
    assert.equal(chooseFramesOn('auto', found, null, false).use, 'cpu');
  });

  it("cuda in ffmpeg but no CUDA torch (this machine's python3 runs the real helper): CPU, with the reason", async function () {
    this.timeout(60_000);
    const found = await probeGpuFrames({ ffmpegPath: withCuda(), pythonPath: 'python3', helperPath });
    assert.equal(found.ffmpegCuda, true);
    assert.equal(found.ok, false);
    assert.match(found.reasons.join(' '), /no torch|sees no CUDA|no pillow/);
    assert.equal(chooseFramesOn('auto', found, pilotSaw(true)).use, 'cpu');
  });

  it('a missing ffmpeg or helper, or a Python that answers nonsense, is a reason, never a throw', async () => {
    const missing = await probeGpuFrames({ ffmpegPath: path.join(dir, 'no-such-ffmpeg'), pythonPath: okPython(), helperPath: path.join(dir, 'nope.py') });
    assert.equal(missing.ok, false);
    assert.match(missing.reasons.join(' '), /not found/);
    assert.match(missing.reasons.join(' '), /helper .* is missing/);
    const babble = await probeGpuFrames({ ffmpegPath: withCuda(), pythonPath: script('python-babble', 'echo hello'), helperPath });
    assert.match(babble.reasons.join(' '), /did not answer one JSON line/);
  });

  it('--frames-on takes cpu, gpu or auto (default cpu) and refuses anything else', () => {
    assert.equal(parseFramesOn(undefined), 'cpu');
    assert.equal(parseFramesOn('GPU'), 'gpu');
    assert.throws(() => parseFramesOn('tpu'), /must be one of cpu, gpu, auto/);
  });

  it('doctor: says whether the host has the GPU path, why not, and the saving the model predicts', async () => {
    const yes = await checkGpuFrames({ ...process.env, FFMPEG_BIN: withCuda(), PYTHON: okPython() });
    assert.equal(yes.id, 'gpu-frames');
    assert.match(yes.detail, /^available \(NVIDIA H100/);
    // doctor's figure is the device's measurement the host model plays (bench/hostSim/measured/gpu-frames.json).
    const measured = JSON.parse(readFileSync(path.join(__dirname, '../../../../../bench/hostSim/measured/gpu-frames.json'), 'utf8'));
    assert.equal(GPU_PATH_S_PER_720P_VIDEO.toFixed(2), measured.classes.v720.cpuSPerVideo.toFixed(2));
    // doctor's saving is the whole sweep's (issue 45): the marginal video of the end-to-end runs' file.
    const sweep = JSON.parse(readFileSync(path.join(__dirname, '../../../../../', SWEEP_RESULTS_FILE), 'utf8'));
    const ok = sweep.runs.filter((r: { rc: number }) => r.rc === 0);
    const sizes = [...new Set(ok.map((r: { videos: number }) => r.videos))].sort((a, b) => Number(a) - Number(b)) as number[];
    const mean = (v: number, mode: string, k: 'cpu_s_total') => {
      const rs = ok.filter((r: { videos: number; mode: string }) => r.videos === v && r.mode === mode);
      return rs.reduce((a: number, r: Record<string, number>) => a + r[k], 0) / rs.length;
    };
    const [small, large] = [sizes[0], sizes[sizes.length - 1]];
    for (const mode of ['cpu', 'gpu'] as const) {
      const m = SWEEP_MODES[mode];
      const marginal = (mean(large, m, 'cpu_s_total') - mean(small, m, 'cpu_s_total')) / (large - small);
      assert.equal(SWEEP_CPU_S_PER_VIDEO[mode].toFixed(3), marginal.toFixed(3));
    }
    assert.ok(yes.detail.includes('H100 took 88 % less CPU a video (10.5 → 1.3 CPU-s of our process tree a marginal video'), yes.detail);
    assert.match(yes.action ?? '', /--frames-on gpu/);
    // MPS: said from its control pipe (CUDA_MPS_PIPE_DIRECTORY), with the GPU time measured either way.
    assert.match(yes.detail, /MPS is off: the frames take ~0\.2 GPU-s a 720p video .* ~0\.059 with MPS on/);
    const pipeDir = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-mps-'));
    try {
      writeFileSync(path.join(pipeDir, 'control'), '');
      const mps = await checkGpuFrames({ ...process.env, FFMPEG_BIN: withCuda(), PYTHON: okPython(), CUDA_MPS_PIPE_DIRECTORY: pipeDir });
      assert.ok(mps.detail.includes(`MPS is on (${pipeDir}): the frames take ~0.059 GPU-s`), mps.detail);
    } finally {
      rmSync(pipeDir, { recursive: true, force: true });
    }
    const no = await checkGpuFrames({ ...process.env, FFMPEG_BIN: withoutCuda(), PYTHON: okPython() });
    assert.equal(no.status, 'ok');
    assert.match(no.detail, /^not available, frames stay on the CPU: .*no cuda hwaccel/);
    assert.ok(GPU_PATH_S_PER_720P_VIDEO < CPU_PATH_S_PER_720P_VIDEO);
  });

  it("the pilot's verdict 'bound by our frames' names frames on the GPU when the cores are full", () => {
    assert.match(FP_BOTTLENECK_WORDS.prepareKnob, /cores are full, frames on the GPU \(--frames-on gpu/);
  });
});
