import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { qwenImageTokens, qwenResizedDims, roundHalfEven } from '../../../../../src/core/protocols/fp/rules/qwenTokens';

// What transformers 5.17's own Qwen2VLImageProcessor (patch 16, merge 2, size 65,536..16,777,216)
// gives: a copy of ../shared/data/qwen3vl_image_tokens.json. sizes: [w, h, resized_w, resized_h,
// image tokens without the 2 vision start/end]; processor_runs: [w, h, grid_t, grid_h, grid_w, tokens].
const fixtureSchema = z.object({
  transformers: z.string(),
  sizes: z.array(z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int(), z.number().int()])),
  processor_runs: z.array(z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int(), z.number().int(), z.number().int()])),
});
const fixture = fixtureSchema.parse(JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../fixtures/qwen3vl_image_tokens.json'), 'utf8')));

describe("protocol/qwenTokens against transformers' own image processor", () => {
  it(`every size of the data file (${fixture.sizes.length}) resizes and costs exactly as transformers ${fixture.transformers} says`, () => {
    assert.equal(fixture.sizes.length, 4500);
    const wrong: string[] = [];
    for (const [w, h, rw, rh, tokens] of fixture.sizes) {
      const d = qwenResizedDims(w, h);
      const t = qwenImageTokens(w, h);
      if (d.width !== rw || d.height !== rh || t !== tokens + 2)
        wrong.push(`${w}×${h}: ${d.width}×${d.height} ${t} tokens, expected ${rw}×${rh} ${tokens + 2}`);
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} sizes differ`);
  });

  it(`the ${fixture.processor_runs.length} processor runs on real pixel arrays: grid and tokens`, () => {
    assert.equal(fixture.processor_runs.length, 14);
    for (const [w, h, gt, gh, gw, tokens] of fixture.processor_runs) {
      const d = qwenResizedDims(w, h);
      assert.deepEqual([1, d.height / 16, d.width / 16], [gt, gh, gw], `${w}×${h}`);
      assert.equal(qwenImageTokens(w, h), tokens + 2, `${w}×${h}`);
    }
  });

  it('the two sizes the issue found: no tolerance before ceil, no clamp before the pixel bounds', () => {
    // 239·√(65536/57121) is 256.00000000000006 as Python's doubles compute it: ⌈8.0000…⌉ = 9.
    assert.deepEqual(qwenResizedDims(239, 239), { width: 288, height: 288 });
    assert.equal(qwenImageTokens(239, 239), 83);
    // round(16/32) = round(0.5) = 0: the product is below the minimum, scaled up from the raw size.
    assert.deepEqual(qwenResizedDims(16, 2160), { width: 32, height: 2976 });
    assert.equal(qwenImageTokens(16, 2160), 95);
  });

  it("Python's round: halves to even, everything else to the nearest", () => {
    assert.deepEqual([0.5, 1.5, 2.5, 22.5, 23.5, 0.49999999999999994, 2.5000000000000004].map(roundHalfEven), [0, 2, 2, 22, 24, 0, 3]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const x = n + f;
        const r = roundHalfEven(x);
        assert.ok(Math.abs(r - x) <= 0.5 && (Math.abs(r - x) < 0.5 || r % 2 === 0), `${x} → ${r}`);
      }),
      { numRuns: 500 },
    );
  });

  it('properties: multiples of 32, within the pixel bounds, aspect kept, tokens = (h/32)(w/32) + 2', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8000 }), fc.integer({ min: 1, max: 8000 }), (w, h) => {
        fc.pre(Math.max(w, h) / Math.min(w, h) <= 200); // transformers refuses wider shapes
        const d = qwenResizedDims(w, h);
        assert.equal(d.width % 32, 0);
        assert.equal(d.height % 32, 0);
        assert.ok(d.width >= 32 && d.height >= 32);
        assert.ok(d.width * d.height >= 65_536 && d.width * d.height <= 16_777_216, `${w}×${h} → ${d.width}×${d.height}`);
        assert.equal(qwenImageTokens(w, h), (d.width / 32) * (d.height / 32) + 2);
        // Inside the bounds nothing is scaled: each side is its own nearest multiple of 32.
        const rw = roundHalfEven(w / 32) * 32;
        const rh = roundHalfEven(h / 32) * 32;
        if (rw * rh >= 65_536 && rw * rh <= 16_777_216) assert.deepEqual(d, { width: rw, height: rh });
        // Swapping the sides swaps the result.
        assert.deepEqual(qwenResizedDims(h, w), { width: d.height, height: d.width });
      }),
      { numRuns: 2000 },
    );
  });
});
