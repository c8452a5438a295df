import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { fpInflightTokenBudget, fpKvTokens, fpServerSlot } from '../../../../../src/core/protocols/fp/sweep/kvBudget';
import { KV_BYTES_PER_TOKEN, contextFit } from '../../../../../src/core/protocols/fp/doctor/context';

describe('fp: in-flight cap per server from its KV cache', () => {
  it('KV tokens follow the doctor’s arithmetic (memory × GPU_UTIL − weights − reserve, 147,456 B a token)', () => {
    const b200 = { name: 'B200', memoryMiB: 183_359 };
    assert.equal(fpKvTokens(b200.memoryMiB, 0.85), Math.floor(contextFit(b200, 0.85).kvBudgetBytes / KV_BYTES_PER_TOKEN));
    assert.equal(fpKvTokens(183_359, 0.85), 983_520);
    assert.equal(fpKvTokens(10_000, 0.85), 0, 'weights do not fit: no KV');
  });

  it('a server with a known KV cache takes MAX_SEQS requests within 90 % of its KV tokens; unknown: WORKERS', () => {
    assert.deepEqual(fpServerSlot('u', { workers: 6, maxSeqs: 32 }, 983_520), { endpoint: 'u', capacity: 32, tokenBudget: 885_168 });
    assert.deepEqual(fpServerSlot('u', { workers: 6, maxSeqs: 32 }, null), { endpoint: 'u', capacity: 6 });
    assert.deepEqual(fpServerSlot('u', { workers: 6, maxSeqs: 32 }, 0), { endpoint: 'u', capacity: 6 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 256 }), fc.integer({ min: 1, max: 5_000_000 }), (workers, maxSeqs, kv) => {
        const s = fpServerSlot('u', { workers, maxSeqs }, kv);
        assert.ok(s.capacity >= workers, 'never fewer requests in flight than WORKERS');
        assert.ok(s.tokenBudget! <= kv && s.tokenBudget === fpInflightTokenBudget(kv));
      }),
    );
  });
});
