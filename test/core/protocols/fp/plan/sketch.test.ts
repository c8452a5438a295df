import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { sketchPlan, summarizeMeta, TokenPredictor } from '../../../../../src/core/protocols/fp/plan/sketch';
import { DEFAULT_CONDITIONS, parseCondition } from '../../../../../src/core/protocols/fp/rules/conditions';
import { planFrames, type VideoMetaLike } from '../../../../../src/core/protocols/fp/rules/plan';
import { predictPromptTokens } from '../../../../../src/core/protocols/fp/rules/qwenTokens';

const CONDS = [...DEFAULT_CONDITIONS, 'v_1_s168', 'v_64_s336', 'v_fps3_s336', 'v_fps0.1_s448'].map(parseCondition);

// Stored videos as prepared: short side 720 or 480 (sometimes other), 1..1024 frames, ascending
// timestamps with uneven gaps and a late start now and then.
const metaArb: fc.Arbitrary<VideoMetaLike> = fc
  .record({
    shortSide: fc.constantFrom(720, 480, 360, 224),
    ratio: fc.constantFrom('16:9', '4:3', '1:1', '9:16', '3:4', '21:9'),
    n: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1024 })),
    start: fc.constantFrom(0, 0.04, 1.5),
    step: fc.double({ min: 0.05, max: 8, noNaN: true }),
    jitter: fc.double({ min: 0, max: 0.45, noNaN: true }),
  })
  .map(({ shortSide, ratio, n, start, step, jitter }) => {
    const [a, b] = ratio.split(':').map(Number);
    const long = Math.round((shortSide * Math.max(a, b)) / Math.min(a, b));
    const [width, height] = a >= b ? [long, shortSide] : [shortSide, long];
    const timestamps = Array.from({ length: n }, (_, i) => start + i * step + (i % 3 === 1 ? jitter * step : 0));
    return { width, height, timestamps, too_short: n <= 32 };
  });

describe('plan/sketch', () => {
  it('agrees with planFrames: status, reuse source, dims; frames exact or an upper bound', () => {
    fc.assert(
      fc.property(metaArb, (meta) => {
        for (const cond of CONDS) {
          const sk = sketchPlan(cond, cond.kind === 'blind' ? null : summarizeMeta(meta));
          const fp = planFrames(cond, cond.kind === 'blind' ? null : meta);
          assert.equal(sk.status, fp.status, cond.name);
          if (sk.status === 'reuse' && fp.status === 'reuse') assert.equal(sk.from, fp.reusedFrom);
          if (sk.status === 'send' && fp.status === 'send') {
            assert.equal(sk.width, fp.width, cond.name);
            assert.equal(sk.height, fp.height, cond.name);
            if (sk.exact) assert.equal(sk.frames, fp.indices.length, cond.name);
            else assert.ok(sk.frames >= fp.indices.length, `${cond.name}: bound ${sk.frames} < ${fp.indices.length}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('splits predicted tokens into image and text parts that sum to predictPromptTokens', () => {
    const tp = new TokenPredictor();
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 1280 }),
        fc.integer({ min: 16, max: 1280 }),
        fc.integer({ min: 0, max: 1024 }),
        fc.string({ maxLength: 400 }),
        (w, h, n, text) => {
          const dims = new Array(n).fill({ width: w, height: h });
          assert.equal(tp.imageTokens(w, h, n) + tp.textTokens(text), predictPromptTokens(dims, text));
        },
      ),
      { numRuns: 200 },
    );
    assert.equal(tp.imageTokens(null, null, 0), 0);
  });
});
