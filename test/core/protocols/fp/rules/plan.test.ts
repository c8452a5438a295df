import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseCondition } from '../../../../../src/core/protocols/fp/rules/conditions';
import { planFrames, type VideoMetaLike } from '../../../../../src/core/protocols/fp/rules/plan';

function video(width: number, height: number, nFrames: number, step = 0.5, start = 0): VideoMetaLike {
  return { width, height, timestamps: Array.from({ length: nFrames }, (_, i) => start + i * step), too_short: nFrames <= 32 };
}

describe('protocol/plan', () => {
  it('v_blind sends text only', () => {
    const p = planFrames(parseCondition('v_blind'), null);
    assert.equal(p.status, 'send');
    if (p.status === 'send') assert.deepEqual([p.indices, p.width, p.shortSide, p.capped], [[], null, null, null]);
  });
  it('too_short: NA for fps conditions and frame counts above 32 only', () => {
    const short = video(1280, 720, 20);
    for (const c of ['v_fps0.25_s224', 'v_fps2_s224', 'v_128_s224']) assert.equal(planFrames(parseCondition(c), short).status, 'NA', c);
    for (const c of ['v_1', 'v_8_s224', 'v_32', 'v_32_s168', 'v_32_s448']) assert.equal(planFrames(parseCondition(c), short).status, 'send', c);
    const p = planFrames(parseCondition('v_32'), short);
    if (p.status === 'send') assert.deepEqual([p.indices.length, p.capped], [20, true]);
  });
  it('stored-480: v_32_s448 reuses v_32; other sizes are sent', () => {
    const long480 = video(854, 480, 1024, 2);
    assert.deepEqual(planFrames(parseCondition('v_32_s448'), long480), { status: 'reuse', reusedFrom: 'v_32' });
    const p = planFrames(parseCondition('v_32_s336'), long480);
    assert.equal(p.status, 'send');
    if (p.status === 'send') assert.deepEqual([p.width, p.height, p.shortSide], [598, 336, 336]);
    assert.equal(planFrames(parseCondition('v_32_s448'), video(1280, 720, 100)).status, 'send');
  });
  it('fps on a long 16:9 video: capped at 582 with n_grid recorded; fps0.25 not capped', () => {
    const long = video(1280, 720, 1400, 0.5); // 700 s at 2 fps
    const fps1 = planFrames(parseCondition('v_fps1_s224'), long);
    assert.equal(fps1.status, 'send');
    if (fps1.status === 'send') {
      assert.deepEqual([fps1.width, fps1.height, fps1.tokensPerFrame, fps1.nMax, fps1.nGrid, fps1.cappedCtx], [398, 224, 97, 582, 700, true]);
      assert.equal(fps1.indices.length, 582);
      assert.equal(fps1.capped, null);
    }
    const q = planFrames(parseCondition('v_fps0.25_s224'), long);
    if (q.status === 'send') assert.deepEqual([q.nGrid, q.cappedCtx, q.indices.length], [175, false, 175]);
  });
  it('timestamps in the plan are the stored ones of the chosen indices', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1200 }),
        fc.constantFrom('v_1', 'v_8_s224', 'v_32', 'v_128_s224', 'v_fps0.5_s224', 'v_fps2_s224', 'v_32_s168'),
        fc.constantFrom<[number, number]>([1280, 720], [960, 720], [720, 1280], [854, 480]),
        (n, name, [w, h]) => {
          const meta = video(w, h, n, 0.5, 1.25);
          const p = planFrames(parseCondition(name), meta);
          if (p.status !== 'send') return;
          assert.deepEqual(
            p.timestamps,
            p.indices.map((i) => meta.timestamps[i]),
          );
          assert.ok(p.indices.length <= 1024);
          assert.equal(p.shortSide, Math.min(p.width!, p.height!));
        },
      ),
      { numRuns: 200 },
    );
  });
});
