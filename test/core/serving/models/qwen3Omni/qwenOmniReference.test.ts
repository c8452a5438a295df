import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import {
  FPS_MAX_FRAMES,
  FPS_MIN_FRAMES,
  referenceFrameIndices,
  referenceFrameSize,
  smartNframes,
  smartResize,
  videoMaxPixels,
  VIDEO_MIN_PIXELS,
} from '../../../../../src/core/serving/models/qwen3Omni/omniUtils';
import {
  audioTokens,
  audioTokensForFeatureFrames,
  countPlaceholders,
  OMNI_AUDIO_TOKEN_ID,
  OMNI_VIDEO_TOKEN_ID,
  processorFrameSize,
  resampledLength,
  serverPixelBounds,
  videoTokens,
} from '../../../../../src/core/serving/models/qwen3Omni/counts';
import { planRequestFields, targetPlan } from '../../../../../src/core/serving/models/qwen3Omni/videoPlan';

// The outside reference: a transcription of the upstream Python (qwen_omni_utils v2_5 vision_process.py
// smart_nframes / smart_resize / fetch_video's budget; transformers' Qwen3-Omni video size defaults; vLLM
// qwen3_omni_moe_thinker.py _get_feat_extract_output_lengths
// and the hop padding; librosa.resample's length), run by the machine's CPython on every case at once.
const PYTHON = '/usr/bin/python3';
const PY = String.raw`
import sys, json, math
F, MINP, MAXP = 28, 128*28*28, 768*28*28
TOTAL = int(float(128000 * 28 * 28 * 0.9))
def rbf(n, f): return round(n / f) * f
def cbf(n, f): return math.ceil(n / f) * f
def fbf(n, f): return math.floor(n / f) * f
def smart_resize(h, w, factor, min_pixels, max_pixels):
    h_bar = max(factor, rbf(h, factor)); w_bar = max(factor, rbf(w, factor))
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((h * w) / max_pixels); h_bar = fbf(h / beta, factor); w_bar = fbf(w / beta, factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (h * w)); h_bar = cbf(h * beta, factor); w_bar = cbf(w * beta, factor)
    return h_bar, w_bar
def smart_nframes(total, fps):
    min_frames = cbf(4, 2); max_frames = fbf(min(768, total), 2)
    n = total / fps * 2.0
    n = min(min(max(n, min_frames), max_frames), total)
    return fbf(n, 2)
def feat_out(L):
    leave = L % 100; feat = (leave - 1) // 2 + 1
    return ((feat - 1) // 2 + 1 - 1) // 2 + 1 + (L // 100) * 13
out = []
for c in json.load(sys.stdin):
    h, w, total, fps, samples, sr = c
    n = smart_nframes(total, fps)
    max_pixels = max(min(768*28*28, TOTAL / n * 2), int(MINP * 1.05))
    h1, w1 = smart_resize(h, w, F, MINP, max_pixels)
    h2, w2 = smart_resize(h1, w1, 32, 128*32*32, 768*32*32)
    vt = (n // 2) * (h2 // 16) * (w2 // 16) // 4
    s16 = samples if sr == 16000 else int(math.ceil(samples * 16000 / sr))
    padded = s16 if s16 % 160 == 0 else s16 + 160 - s16 % 160
    out.append([n, h1, w1, h2, w2, vt, feat_out(padded // 160)])
json.dump(out, sys.stdout)
`;

type Case = [number, number, number, number, number, number];
function python(cases: Case[]): number[][] {
  const r = spawnSync(PYTHON, ['-c', PY], { input: JSON.stringify(cases), maxBuffer: 1 << 26, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as number[][];
}

const side = fc.integer({ min: 32, max: 4096 });
const caseArb: fc.Arbitrary<Case> = fc
  .tuple(
    side,
    side,
    fc.integer({ min: 4, max: 200000 }),
    fc.constantFrom(23.976, 24, 25, 29.97, 30, 50, 59.94, 60, 1, 0.5, 120),
    fc.integer({ min: 1, max: 3e7 }),
    fc.constantFrom(16000, 22050, 44100, 48000, 8000),
  )
  .filter(([h, w]) => Math.max(h, w) / Math.min(h, w) < 200);

describe('avtime reference preprocessing (qwen_omni_utils + Qwen3-Omni counts)', () => {
  it('a 10 s 1280x720 30 fps video with 44.1 kHz audio: 20 frames, 1008x560 then 1024x576, 5760 video and 130 audio tokens', () => {
    const p = targetPlan({ width: 1280, height: 720, totalFrames: 300, fps: 30, audio: { sampleRate: 44100, samples: 441000 } }, true);
    assert.equal(p.nframes, 20);
    assert.deepEqual(p.referenceSize, { height: 560, width: 1008 });
    assert.deepEqual(p.modelSize, { height: 576, width: 1024 });
    assert.deepEqual(p.predicted, { video: 10 * 18 * 32, audio: 130 });
    assert.equal(p.audioSamples16k, 160000);
    assert.equal(planRequestFields(p).media_io_kwargs.video.num_frames, 20);
    // Audio in video off: no audio tokens predicted.
    assert.equal(targetPlan({ width: 1280, height: 720, totalFrames: 300, fps: 30, audio: null }, false).predicted.audio, 0);
  });

  it('agrees exactly with the Python transcription of upstream on 400 random videos', () => {
    const cases = fc.sample(caseArb, { numRuns: 400, seed: 18 });
    const want = python(cases);
    cases.forEach(([h, w, total, fps, samples, sr], i) => {
      const n = smartNframes(total, fps);
      const r1 = referenceFrameSize(h, w, n);
      const r2 = processorFrameSize(r1.height, r1.width);
      const got = [n, r1.height, r1.width, r2.height, r2.width, videoTokens(n, r2.height, r2.width), audioTokens(resampledLength(samples, sr))];
      assert.deepEqual(got, want[i], `case ${JSON.stringify(cases[i])}`);
    });
  });

  it('frame count: even, 4..768, never above the video (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 500000 }), fc.double({ min: 0.2, max: 240, noNaN: true }), (total, fps) => {
        const n = smartNframes(total, fps);
        assert.equal(n % 2, 0);
        assert.ok(n >= FPS_MIN_FRAMES && n <= FPS_MAX_FRAMES && n <= total, `${n} of ${total}`);
        // 2 fps while the bounds allow it.
        const want = Math.floor(((total / fps) * 2) / 2) * 2;
        if (want >= 4 && want <= Math.min(768, total) - 2) assert.equal(n, want);
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('frame indices: linspace over the whole video, rounded; within one frame of vLLM loader’s floor (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 100000 }), fc.integer({ min: 2, max: 768 }), (total, k) => {
        const n = Math.min(k, total);
        const idx = referenceFrameIndices(total, n);
        assert.equal(idx.length, n);
        assert.equal(idx[0], 0);
        assert.equal(idx[n - 1], total - 1);
        for (let i = 0; i < n; i++) {
          const exact = (i * (total - 1)) / (n - 1);
          // torch.linspace computes in float32: half a frame plus its rounding error at this magnitude.
          assert.ok(Math.abs(idx[i] - exact) <= 0.5 + total * 2 ** -21, `index ${i}: ${idx[i]} vs ${exact}`);
          if (i) assert.ok(idx[i] >= idx[i - 1]);
          assert.ok(idx[i] - Math.floor(exact) <= 1); // vLLM's np.linspace(..., dtype=int) truncates
        }
      }),
      { seed: 9, numRuns: 300 },
    );
  });

  it('resize: sides multiples of the factor, area inside the budget (property)', () => {
    fc.assert(
      fc.property(
        side,
        side,
        fc.integer({ min: 4, max: 768 }).map((n) => n - (n % 2)),
        (h, w, n) => {
          fc.pre(Math.max(h, w) / Math.min(h, w) < 200);
          const r = referenceFrameSize(h, w, n);
          assert.equal(r.height % 28, 0);
          assert.equal(r.width % 28, 0);
          assert.ok(r.height * r.width <= videoMaxPixels(n), 'within max_pixels');
          if (Math.max(h, w) / Math.min(h, w) < 4) assert.ok(r.height * r.width >= VIDEO_MIN_PIXELS * 0.9, 'near or above min_pixels');
          const m = processorFrameSize(r.height, r.width);
          assert.equal(m.height % 32, 0);
          assert.equal(m.width % 32, 0);
        },
      ),
      { seed: 11, numRuns: 500 },
    );
  });

  it('server pixel bounds: one resize of the original reaches the reference’s two-step size whenever bounds are returned', () => {
    let found = 0;
    fc.assert(
      fc.property(
        side,
        side,
        fc.integer({ min: 2, max: 384 }).map((k) => 2 * k),
        (h, w, n) => {
          fc.pre(Math.max(h, w) / Math.min(h, w) < 20);
          const r1 = referenceFrameSize(h, w, n);
          const target = processorFrameSize(r1.height, r1.width);
          const b = serverPixelBounds(h, w, target);
          if (b) {
            found++;
            assert.deepEqual(smartResize(h, w, 32, b.minPixels, b.maxPixels), target);
          }
        },
      ),
      { seed: 13, numRuns: 500 },
    );
    assert.ok(found > 400, `bounds found for ${found} of 500`);
  });

  it('audio tokens: 13 per full second of 16 kHz audio, never decreasing with length', () => {
    assert.equal(audioTokensForFeatureFrames(100), 13);
    assert.equal(audioTokens(16000 * 60), 60 * 13);
    assert.equal(audioTokensForFeatureFrames(0), 0);
    let prev = 0;
    for (let f = 0; f < 1000; f++) {
      const t = audioTokensForFeatureFrames(f);
      assert.ok(t >= prev, `frames ${f}`);
      prev = t;
    }
  });

  it('counts the placeholder ids in prompt token ids', () => {
    const ids = [1, OMNI_VIDEO_TOKEN_ID, OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID, 151669, 5];
    assert.deepEqual(countPlaceholders(ids), { video: 2, audio: 1 });
  });
});
