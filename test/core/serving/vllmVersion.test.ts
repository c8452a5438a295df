// A vLLM release against a run type's pin (serving/vllmVersion.ts), and the pins themselves.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { describePin, parseVllmVersion, pinAccepts, pinRefusal, type VllmPin } from '../../../src/core/serving/vllmVersion';
import { FP_VLLM_PIN } from '../../../src/core/protocols/fp/vllmPin';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN } from '../../../src/core/protocols/avtime/vllmPins';

const triple = fc.tuple(fc.nat(3), fc.nat(40), fc.nat(5));
const str = (t: readonly number[]) => t.join('.');
/** Lexicographic order of (major, minor, patch), written out independently of the module. */
const less = (a: readonly number[], b: readonly number[]) => a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])));

describe('vLLM versions against a pin', () => {
  it('accepts exactly min ≤ v < below (property), whatever suffix the build carries', () => {
    fc.assert(
      fc.property(triple, triple, fc.option(triple), fc.constantFrom('', 'rc1', '+cu129', '.post1', 'rc2+cpu'), fc.boolean(), (v, min, below, suffix, vee) => {
        const pin: VllmPin = { runType: 'x', min: str(min), below: below ? str(below) : null, rulesFrom: str(min), why: 'y' };
        const want = !less(v, min) && (below === null || less(v, below));
        assert.equal(pinAccepts(pin, `${vee ? 'v' : ''}${str(v)}${suffix}`), want);
      }),
      { numRuns: 500, seed: 18 },
    );
  });

  it('a string that is no version is never accepted; two-part versions read as .0', () => {
    assert.equal(parseVllmVersion('dev'), null);
    assert.equal(pinAccepts(AVTIME_TARGET_VLLM_PIN, 'unknown'), false);
    assert.deepEqual(parseVllmVersion('0.18'), [0, 18, 0]);
  });

  it('the three run types each have their own pin', () => {
    assert.equal(describePin(FP_VLLM_PIN), '0.11.x');
    assert.equal(describePin(AVTIME_TARGET_VLLM_PIN), '≥ 0.18.0');
    assert.equal(describePin(AVTIME_JUDGE_VLLM_PIN), '≥ 0.17.0');
    for (const v of ['0.11.0', '0.11.2'])
      assert.ok(pinAccepts(FP_VLLM_PIN, v) && !pinAccepts(AVTIME_TARGET_VLLM_PIN, v) && !pinAccepts(AVTIME_JUDGE_VLLM_PIN, v));
    assert.ok(!pinAccepts(AVTIME_TARGET_VLLM_PIN, '0.17.1') && pinAccepts(AVTIME_JUDGE_VLLM_PIN, '0.17.1'), '0.17.1 lacks #36319');
    assert.ok(pinAccepts(AVTIME_TARGET_VLLM_PIN, '0.18.0') && pinAccepts(AVTIME_JUDGE_VLLM_PIN, '0.18.0') && !pinAccepts(FP_VLLM_PIN, '0.18.0'));
    assert.equal(describePin({ ...FP_VLLM_PIN, below: '0.20.0' }), '≥ 0.11.0, < 0.20.0');
    assert.match(pinRefusal(AVTIME_TARGET_VLLM_PIN, null, 'the target server', 'Fix it.'), /reports no vLLM version .* needs vLLM ≥ 0\.18\.0 .* Fix it\.$/);
  });
});
