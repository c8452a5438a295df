// The cost model's torch-thread knob for vLLM's API process (src/standins/vllm/cost/processorThreads.ts).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fastProcessorMs, processorMs } from '../../../../src/standins/vllm/cost/calibration';
import { MEASURED_PROCESSOR_THREADS, PROCESSOR_THREADS_SHARED4, processorSpeedup } from '../../../../src/standins/vllm/cost/processorThreads';
import { processInputs, type FrontEndImage } from '../../../../src/standins/vllm/cost/frontEnd';

const SMALL = 398 * 224;
const LARGE = 1280 * 720;

describe('cost model: the API process’s torch threads', () => {
  it('one thread is the calibration; more take the measured ratio at each measured size', () => {
    assert.equal(processorMs(SMALL, 1), fastProcessorMs(SMALL));
    for (const r of PROCESSOR_THREADS_SHARED4) {
      assert.ok(Math.abs(processorMs(SMALL, r.threads) - (fastProcessorMs(SMALL) * r.smallMs) / PROCESSOR_THREADS_SHARED4[0].smallMs) < 1e-9);
      assert.ok(Math.abs(processorMs(LARGE, r.threads) - (fastProcessorMs(LARGE) * r.largeMs) / PROCESSOR_THREADS_SHARED4[0].largeMs) < 1e-9);
    }
    assert.ok(Math.abs(processorMs(SMALL, 2) - 2.72) < 0.01, 'the 4.73 ms base × 2.565 / 4.456');
  });

  it('interpolates between the sizes, refuses thread counts never measured', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16 * 16, max: 4096 * 4096 }), fc.constantFrom(...MEASURED_PROCESSOR_THREADS), (px, t) => {
        const s = processorSpeedup(t, px);
        const ends = [processorSpeedup(t, SMALL), processorSpeedup(t, LARGE)];
        assert.ok(s >= Math.min(...ends) - 1e-12 && s <= Math.max(...ends) + 1e-12);
      }),
    );
    assert.throws(() => processorMs(SMALL, 8), RangeError);
    assert.throws(() => processorMs(SMALL, 0), RangeError);
  });

  it('processInputs spends less API-thread time on misses with 2 threads, the same on hits', () => {
    const imgs: FrontEndImage[] = Array.from({ length: 32 }, (_, i) => ({ key: `k${i}`, width: 398, height: 224 }));
    const one = processInputs(imgs, null, 1);
    const two = processInputs(imgs, null, 2);
    assert.ok(two.processS < 0.6 * one.processS);
    assert.equal(two.hashS, one.hashS);
    assert.equal(two.misses, one.misses);
  });
});
