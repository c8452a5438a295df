// The Gemini backend's pure rules (issue 35, points 2 and 4): what each Google error body means, what a
// generateContent answer means, --max-rpm's window on a fake clock, and the one-backend rule.
import * as assert from 'node:assert/strict';
import { ApiError } from '@google/genai';
import { mixedBackendProblem } from '../../../../../src/core/protocols/caption/backends';
import { readGeminiReply } from '../../../../../src/core/protocols/caption/gemini/geminiAnswer';
import { durationMs, errorAction, readGoogleError } from '../../../../../src/core/protocols/caption/gemini/googleError';
import { RpmLimiter, type Clock } from '../../../../../src/core/protocols/caption/gemini/rateLimit';
import { captionSignature } from '../../../../../src/core/protocols/caption/signature';

const apiError = (status: number, body: unknown) => new ApiError({ status, message: JSON.stringify(body) });

describe('Gemini errors as the API gives them', () => {
  it('429 waits as RetryInfo says; 500/503 retry; 400 INVALID_ARGUMENT and FAILED_PRECONDITION are final; a refused key stops', () => {
    const rate = readGoogleError(
      apiError(429, {
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          message: 'quota',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' }],
        },
      }),
    );
    assert.deepEqual([rate.retryDelayMs, errorAction(rate)], [37_000, 'wait']);
    assert.equal(readGoogleError(apiError(429, { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'q' } })).retryDelayMs, null);
    for (const s of [500, 503, 504]) assert.equal(errorAction(readGoogleError(apiError(s, { error: { code: s, message: 'x' } }))), 'retry');
    assert.equal(errorAction(readGoogleError(new TypeError('fetch failed'))), 'retry', 'no answer at all: a lost connection');
    assert.equal(errorAction(readGoogleError(apiError(400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'bad' } }))), 'final');
    assert.equal(errorAction(readGoogleError(apiError(400, { error: { code: 400, status: 'FAILED_PRECONDITION', message: 'not ACTIVE' } }))), 'final');
    const wrongKey = apiError(400, {
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: 'API key not valid.',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      },
    });
    assert.equal(errorAction(readGoogleError(wrongKey)), 'key');
    assert.equal(errorAction(readGoogleError(apiError(403, { error: { code: 403, status: 'PERMISSION_DENIED', message: 'no' } }))), 'key');
    assert.equal(errorAction(readGoogleError(apiError(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'no' } }))), 'key');
    assert.deepEqual([durationMs('1.5s'), durationMs('2m'), durationMs(3)], [1500, null, null]);
  });

  it('a blocked prompt, a blocked answer, an empty answer and a text answer; usage summed with thoughts', () => {
    const blocked = readGeminiReply({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 } });
    assert.deepEqual(blocked, { kind: 'blocked', reason: 'prompt blocked: SAFETY', usage: { prompt: 10, candidates: 0, total: 10 } });
    assert.equal(readGeminiReply({ candidates: [{ finishReason: 'RECITATION' }] }).kind, 'blocked');
    assert.equal(readGeminiReply({ candidates: [{ finishReason: 'STOP', content: { parts: [] } }] }).kind, 'empty');
    const text = readGeminiReply({
      candidates: [{ finishReason: 'STOP', content: { parts: [{ text: 'thinking', thought: true }, { text: '[1]' }] } }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 3, totalTokenCount: 10 },
    });
    assert.deepEqual(text, { kind: 'text', text: '[1]', finishReason: 'STOP', usage: { prompt: 5, candidates: 5, total: 10 } });
  });
});

describe('--max-rpm', () => {
  it('lets N requests start in any 60 s window, the next when the oldest is 60 s old', async () => {
    let now = 0;
    const slept: number[] = [];
    const clock: Clock = { now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) };
    const limiter = new RpmLimiter(2, clock);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await limiter.take();
      starts.push(now);
      now += 1000;
    }
    assert.deepEqual(starts, [0, 1000, 60_000, 61_000, 120_000]);
    const free = new RpmLimiter(null, clock);
    await free.take();
    await free.take();
    assert.equal(slept.length, 2, 'no wait without a bound');
  });
});

describe('one backend per root', () => {
  it('refuses another backend unless --allow-mixed; the same one goes', () => {
    assert.match(mixedBackendProblem({ vllm: 3 }, 'gemini', false)!, /3 videos by vllm.*--allow-mixed/);
    assert.equal(mixedBackendProblem({ vllm: 3 }, 'gemini', true), null);
    assert.equal(mixedBackendProblem({ gemini: 2 }, 'gemini', false), null);
  });

  it('the signature of a Gemini video names its backend and normalizer; a vLLM one is what it was', () => {
    const base = { segmentsSha256: 'a', media: [], model: 'm', promptSha256: 'p', decoding: {} };
    const plain = captionSignature(base);
    const gemini = captionSignature({ ...base, backend: { name: 'gemini', normalizer: 'gemini-loose-v1' } });
    assert.notEqual(plain, gemini);
    assert.notEqual(gemini, captionSignature({ ...base, backend: { name: 'gemini', normalizer: 'other' } }));
  });
});
