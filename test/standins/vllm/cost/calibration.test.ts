// The stand-in's GPU cost reproduces the H200 measurements (issue 17: within 10 % for each measured shape),
// the fit's residuals are shown, and the front-end per-image costs pass through the measured points.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  B200_VLLM_SCALE,
  H200_IMAGE_PROCESSOR,
  H200_PREFILL,
  PREFILL_FIT,
  fastProcessorMs,
  fitPrefill,
  jpegDecodeMs,
  prefillSeconds,
} from '../../../../src/standins/vllm/cost/calibration';
import { GpuEngineModel, DEFAULT_MAX_NUM_BATCHED_TOKENS } from '../../../../src/standins/vllm/cost/gpuEngine';

describe('stand-in cost model: calibration', () => {
  it('the copied table equals ../shared/data/h200_request_cost.json where that file is present', function () {
    const file = path.join(__dirname, '../../../../../shared/data/h200_request_cost.json');
    if (!fs.existsSync(file)) this.skip();
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      prefill: Array<{ cond: string; frames: number; w: number; h: number; prompt_tokens: number; vision_patches: number; prefill_s: number }>;
      image_processor: Array<{ kind: string; w: number; h: number; threads: number; jpeg_decode_ms: number; process_ms: number }>;
    };
    assert.deepEqual(
      H200_PREFILL.map((s) => [s.cond, s.frames, s.w, s.h, s.promptTokens, s.visionPatches, s.prefillS]),
      raw.prefill.map((r) => [r.cond, r.frames, r.w, r.h, r.prompt_tokens, r.vision_patches, r.prefill_s]),
    );
    for (const m of H200_IMAGE_PROCESSOR) {
      const one = raw.image_processor.filter((r) => r.w === m.w && r.h === m.h && r.threads === 1);
      assert.equal(one.find((r) => r.kind === 'fast')?.process_ms, m.fastMs);
      assert.equal(one.find((r) => r.kind === 'slow')?.process_ms, m.slowMs);
      assert.equal(one[0].jpeg_decode_ms, m.jpegDecodeMs);
    }
  });

  it('the least-squares fit reproduces every measured shape within 10 % (residuals printed)', () => {
    const rows = H200_PREFILL.map((s) => {
      const model = prefillSeconds({ newTokens: s.promptTokens, contextTokens: 0, newFrames: s.frames });
      return { cond: s.cond, measured: s.prefillS, model: Number(model.toFixed(4)), residualPct: Number(((model / s.prefillS - 1) * 100).toFixed(1)) };
    });
    console.table(rows);
    for (const r of rows) assert.ok(Math.abs(r.residualPct) <= 10, `${r.cond}: ${r.residualPct} %`);
    // Every coefficient is a cost: none negative (a negative one would make a cache hit cost more).
    for (const [k, v] of Object.entries(PREFILL_FIT)) assert.ok(v >= 0, `${k} = ${v}`);
  });

  it('the fit follows its data: doubling every measured time doubles every coefficient', () => {
    const doubled = fitPrefill(H200_PREFILL.map((s) => ({ ...s, prefillS: 2 * s.prefillS })));
    for (const k of Object.keys(PREFILL_FIT) as Array<keyof typeof PREFILL_FIT>) {
      assert.ok(Math.abs(doubled[k] / PREFILL_FIT[k] - 2) < 1e-6, k);
    }
  });

  it("the engine model's request alone costs the calibration within 10 %, chunked at the default budget", () => {
    for (const s of H200_PREFILL) {
      const engine = new GpuEngineModel({ maxNumSeqs: 1024, maxNumBatchedTokens: DEFAULT_MAX_NUM_BATCHED_TOKENS, gpuScale: 1 });
      engine.add({ id: s.cond, promptTokens: s.promptTokens, frames: s.frames, outputTokens: 1 });
      let t = 0;
      for (let r = engine.step(); r; r = engine.step()) t += r.durationS;
      assert.ok(Math.abs(t / s.prefillS - 1) <= 0.1, `${s.cond}: ${t.toFixed(4)} s against ${s.prefillS} s`);
    }
  });

  it('the B200 estimate scales the GPU time and nothing else', () => {
    const s = H200_PREFILL[H200_PREFILL.length - 1];
    const one = (gpuScale: number) => {
      const e = new GpuEngineModel({ maxNumSeqs: 8, maxNumBatchedTokens: 1 << 20, gpuScale });
      e.add({ id: 1, promptTokens: s.promptTokens, frames: s.frames, outputTokens: 1 });
      return (e.step() as { durationS: number }).durationS;
    };
    assert.ok(Math.abs(one(B200_VLLM_SCALE) / one(1) - B200_VLLM_SCALE) < 1e-12);
    assert.ok(one(B200_VLLM_SCALE) > 1 && one(B200_VLLM_SCALE) < 1.5, 'issue 17: the capped fps request is ~1–1.5 s on a B200');
  });

  it('the per-image CPU costs pass through both measured sizes and grow with pixels', () => {
    for (const m of H200_IMAGE_PROCESSOR) {
      assert.ok(Math.abs(jpegDecodeMs(m.w * m.h) - m.jpegDecodeMs) < 1e-9);
      assert.ok(Math.abs(fastProcessorMs(m.w * m.h) - m.fastMs) < 1e-9);
    }
    const sizes = [299 * 168, 398 * 224, 597 * 336, 796 * 448, 1280 * 720];
    for (let i = 1; i < sizes.length; i++) assert.ok(fastProcessorMs(sizes[i]) > fastProcessorMs(sizes[i - 1]));
  });
});
