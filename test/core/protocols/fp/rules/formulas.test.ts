import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fpsFrameCap, resizeDims, seedTokensPerFrame } from '../../../../../src/core/protocols/fp/rules/resize';
import { predictContextRefusal, qwenImageTokens, qwenResizedDims } from '../../../../../src/core/protocols/fp/rules/qwenTokens';

describe('protocol/resize', () => {
  it('table of stored sizes × short sides', () => {
    const cases: [number, number, number | null, number, number][] = [
      [1280, 720, 224, 398, 224], // 16:9 → 398.2
      [1280, 720, 168, 299, 168],
      [1280, 720, 336, 597, 336],
      [1280, 720, 448, 796, 448],
      [1280, 720, null, 1280, 720],
      [960, 720, 224, 299, 224], // 4:3 → 298.67
      [720, 1280, 224, 224, 398], // 9:16 portrait
      [720, 1280, 168, 168, 299],
      [854, 480, 448, 797, 448], // stored-480: 797.13
      [854, 480, 224, 399, 224],
      [830, 480, 168, 291, 168], // the SPEC's float trap: 290.5 rounds half up to 291
      [640, 360, 448, 640, 360], // already below S: stored size kept
      [480, 480, 480, 480, 480],
    ];
    for (const [w, h, s, ew, eh] of cases) assert.deepEqual(resizeDims(w, h, s), { width: ew, height: eh }, `${w}x${h}@${s}`);
  });
  it('short side is S and the aspect ratio is kept within half a pixel', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 4000 }), fc.integer({ min: 16, max: 4000 }), fc.integer({ min: 16, max: 1000 }), (w, h, s) => {
        const d = resizeDims(w, h, s);
        if (s >= Math.min(w, h)) return assert.deepEqual(d, { width: w, height: h });
        assert.equal(Math.min(d.width, d.height), Math.min(s, Math.max(d.width, d.height)));
        const long = w >= h ? d.width : d.height;
        const exact = ((w >= h ? w : h) * s) / Math.min(w, h);
        assert.ok(Math.abs(long - exact) <= 0.5 + 1e-9, `${long} vs ${exact}`);
        assert.ok(long - exact < 0.5 || Math.abs(long - exact - 0.5) < 1e-9, 'rounds half up');
      }),
      { numRuns: 500 },
    );
  });
  it("the seed's tokens per frame and cap: 97 and 582 for 16:9 at 224", () => {
    assert.equal(seedTokensPerFrame(398, 224), 97);
    assert.equal(fpsFrameCap(97), 582);
    assert.equal(seedTokensPerFrame(224, 398), 97);
    assert.equal(seedTokensPerFrame(299, 224), 76); // 4:3
    assert.equal(fpsFrameCap(76), 743);
    assert.equal(fpsFrameCap(seedTokensPerFrame(224, 224)), 1024); // 55 tokens → 1027, min 1024
  });
});

describe('protocol/qwenTokens (prediction only)', () => {
  it("SPEC §2.5's examples", () => {
    assert.equal(qwenImageTokens(398, 224), 86);
    assert.equal(qwenImageTokens(299, 168), 68);
    assert.equal(qwenImageTokens(224, 224), 66);
  });
  it('rounds to multiples of 32 with ties to even, scales within pixel bounds', () => {
    assert.deepEqual(qwenResizedDims(1280, 720), { width: 1280, height: 704 }); // 22.5 → 22 (even)
    assert.deepEqual(qwenResizedDims(1312, 720), { width: 1312, height: 704 });
    fc.assert(
      fc.property(fc.integer({ min: 32, max: 5000 }), fc.integer({ min: 32, max: 5000 }), (w, h) => {
        const d = qwenResizedDims(w, h);
        assert.equal(d.width % 32, 0);
        assert.equal(d.height % 32, 0);
        assert.ok(d.width * d.height >= 65536 && d.width * d.height <= 16_777_216);
      }),
      { numRuns: 300 },
    );
  });
  it('a square video at fps2 with 1024 frames is refused by a 65,536 server; 16:9 at the cap is not', () => {
    const square = Array.from({ length: 1024 }, () => ({ width: 224, height: 224 }));
    assert.equal(predictContextRefusal(square, 'Question: q', 65536), true); // 1024 × 66 = 67,584
    const wide = Array.from({ length: 582 }, () => ({ width: 398, height: 224 }));
    assert.equal(predictContextRefusal(wide, 'Question: q', 65536), false); // 582 × 86 = 50,052
  });
  it('images: refused only when the prompt alone exceeds the context; text only: prompt + max_tokens', () => {
    const frames = (n: number) => Array.from({ length: n }, () => ({ width: 224, height: 224 })); // 66 each
    const text = 'x'.repeat(40); // 8 template + 10 text tokens
    // 992 × 66 + 18 = 65,490 ≤ 65,536 (answered, cut at the limit); 993 frames → 65,556 > 65,536.
    assert.equal(predictContextRefusal(frames(992), text, 65536), false);
    assert.equal(predictContextRefusal(frames(993), text, 65536), true);
    assert.equal(predictContextRefusal([], text, 18 + 128), false);
    assert.equal(predictContextRefusal([], text, 18 + 127), true);
  });
});
