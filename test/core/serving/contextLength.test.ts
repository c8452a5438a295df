// One context-length fact: every way of finding that a server holds less than the protocol's context
// is the same error, with the same numbers.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ContextLengthError, contextShortfallOfRefusal, refusalContextLength } from '../../../src/core/serving/contextLength';
import { ContextLengthError as FromLauncher } from '../../../src/core/serving/launcher';
import { checkServer } from '../../../src/core/protocols/fp/sweep/checkServer';
import type { VllmClient } from '../../../src/core/serving/client';

describe('serving: the context-length fact', () => {
  it('reads the length from both vLLM wordings, and a refusal below the need is the error, at or above it none', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 20 }), fc.integer({ min: 1, max: 1 << 20 }), fc.boolean(), (held, needed, wording) => {
        const msg = wording
          ? `This model's maximum context length is ${held} tokens. However, you requested more.`
          : `The decoder prompt is longer than the maximum model length of ${held}.`;
        assert.equal(refusalContextLength(msg), held);
        const e = contextShortfallOfRefusal('http://s', msg, needed);
        if (held < needed) {
          assert.ok(e instanceof ContextLengthError);
          assert.deepEqual(e.shortfall, { server: 'http://s', needed, held });
        } else assert.equal(e, null);
      }),
    );
    assert.equal(contextShortfallOfRefusal('http://s', 'HTTP 400: bad image', 65536), null);
  });

  it('the launcher and the /v1/models check throw that same class', async () => {
    assert.equal(FromLauncher, ContextLengthError);
    const client = {
      endpoint: { url: 'http://127.0.0.1:1' },
      get: async () => ({ status: 200, text: JSON.stringify({ data: [{ id: 'm', max_model_len: 32768 }] }) }),
    };
    await assert.rejects(
      checkServer(client as unknown as VllmClient),
      (e: unknown) => e instanceof ContextLengthError && e.shortfall.held === 32768 && e.shortfall.needed === 65536,
    );
  });
});
