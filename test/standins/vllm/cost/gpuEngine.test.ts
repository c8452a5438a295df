// The engine model's scheduler: token budget (chunked prefill), max-num-seqs, prefix hits, decode steps.
import * as assert from 'node:assert/strict';
import { PREFILL_FIT, STEP_FLOOR_H200_S, prefillSeconds } from '../../../../src/standins/vllm/cost/calibration';
import { GpuEngineModel } from '../../../../src/standins/vllm/cost/gpuEngine';

function drain(e: GpuEngineModel<string>) {
  const steps = [];
  for (let r = e.step(); r; r = e.step()) steps.push(r);
  return steps;
}

describe('stand-in cost model: engine', () => {
  it('splits a long prompt into budget-sized chunks; the first token comes with the last chunk', () => {
    const e = new GpuEngineModel<string>({ maxNumSeqs: 4, maxNumBatchedTokens: 1000, gpuScale: 1 });
    e.add({ id: 'a', promptTokens: 2500, frames: 0, outputTokens: 2 });
    const steps = drain(e);
    assert.deepEqual(
      steps.map((s) => s.tokens),
      [1000, 1000, 500, 1],
    );
    assert.deepEqual(steps[2].prefilled, ['a']);
    assert.deepEqual(steps[3].finished, ['a']);
    // Chunking costs one step floor per extra chunk over the single-pass calibration, plus attention as computed.
    const total = steps.slice(0, 3).reduce((s, x) => s + x.durationS, 0);
    const alone = prefillSeconds({ newTokens: 2500, contextTokens: 0, newFrames: 0 });
    assert.ok(Math.abs(total - alone - 2 * STEP_FLOOR_H200_S) < 1e-9);
  });

  it('runs at most max-num-seqs requests; the rest wait in arrival order', () => {
    const e = new GpuEngineModel<string>({ maxNumSeqs: 2, maxNumBatchedTokens: 100_000, gpuScale: 1 });
    for (const id of ['a', 'b', 'c']) e.add({ id, promptTokens: 100, frames: 0, outputTokens: 3 });
    const first = e.step();
    assert.deepEqual(
      first?.admitted.map((x) => x.id),
      ['a', 'b'],
    );
    assert.deepEqual([e.running, e.waiting], [2, 1]);
    const steps = drain(e);
    const cAdmitted = steps.findIndex((s) => s.admitted.some((x) => x.id === 'c'));
    const abDone = steps.findIndex((s) => s.finished.includes('b'));
    assert.equal(cAdmitted, abDone + 1);
  });

  it('prefix-cache hits are not computed and their images not encoded', () => {
    const run = (cached: number) => {
      const e = new GpuEngineModel<string>({ maxNumSeqs: 4, maxNumBatchedTokens: 100_000, gpuScale: 1 });
      e.add({ id: 'a', promptTokens: 2912, frames: 32, outputTokens: 1, lookupCachedTokens: () => cached, cachedFrames: () => (cached ? 32 : 0) });
      return drain(e);
    };
    const cold = run(0);
    const warm = run(2900);
    assert.equal(warm[0].admitted[0].cachedTokens, 2900);
    assert.equal(warm[0].tokens, 12);
    assert.ok(warm[0].durationS < cold[0].durationS / 3);
    // A full hit still computes the last token (vLLM recomputes it).
    const full = run(5000);
    assert.equal(full[0].tokens, 1);
    assert.ok(PREFILL_FIT.cTok > 0);
  });

  it('decode steps of running requests ride with a new prefill in the same step', () => {
    const e = new GpuEngineModel<string>({ maxNumSeqs: 4, maxNumBatchedTokens: 100_000, gpuScale: 1 });
    e.add({ id: 'a', promptTokens: 100, frames: 0, outputTokens: 3 });
    e.step();
    e.add({ id: 'b', promptTokens: 100, frames: 0, outputTokens: 1 });
    const s = e.step();
    assert.equal(s?.tokens, 101);
    assert.deepEqual(s?.finished, ['b']);
  });
});
