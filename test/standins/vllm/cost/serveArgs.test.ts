// The launch flags the cost model reads, with vLLM 0.11's defaults.
import * as assert from 'node:assert/strict';
import { ArgError, parseServeArgs } from '../../../../src/standins/vllm/args';

describe('stand-in flags for the cost model', () => {
  it('defaults: 4 GiB processor cache, 8192 batched tokens, one API server; each flag read', () => {
    const d = parseServeArgs(['serve', 'm'], {});
    assert.deepEqual([d.mmProcessorCacheGb, d.maxNumBatchedTokens, d.apiServerCount], [4, 8192, 1]);
    const a = parseServeArgs(['serve', 'm', '--mm-processor-cache-gb', '0.5', '--max-num-batched-tokens', '2048', '--api-server-count', '2'], {});
    assert.deepEqual([a.mmProcessorCacheGb, a.maxNumBatchedTokens, a.apiServerCount], [0.5, 2048, 2]);
    assert.throws(() => parseServeArgs(['serve', 'm', '--mm-processor-cache-gb', 'x'], {}), ArgError);
    assert.throws(() => parseServeArgs(['serve', 'm', '--max-num-batched-tokens', '0'], {}), ArgError);
  });
});
