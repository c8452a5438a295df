// The stand-in Gemini through Google's own SDK (@google/genai): the resumable upload in 8 MiB chunks, files.get's
// PROCESSING → ACTIVE, generateContent with the file, files.delete, and the error bodies the backend reads
// (RetryInfo's retryDelay, API_KEY_INVALID, FAILED_PRECONDITION before ACTIVE).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { geminiApi } from '../../../src/core/protocols/caption/gemini/client';
import { errorAction, readGoogleError } from '../../../src/core/protocols/caption/gemini/googleError';
import { readGeminiReply } from '../../../src/core/protocols/caption/gemini/geminiAnswer';
import { startStandinGemini, type StandinGemini } from '../../../src/standins/gemini/server';
import { faultsFrom } from '../../../src/standins/gemini/faults';

const KEY = 'AIzaStandinKey0123456789';

describe('stand-in Gemini through @google/genai', function () {
  this.timeout(30_000);
  let g: StandinGemini;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-standin-'));
    g = await startStandinGemini({
      apiKey: KEY,
      faults: faultsFrom({
        'v/rate': { rateLimited: 1, retryDelay: '2s' },
        'v/busy': { unavailable: 1 },
        'v/safe': { blockAnswer: 'SAFETY' },
        'v/late': { activeAfterGets: 3 },
      }),
    });
  });
  after(async () => {
    await g.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function uploaded(display: string, bytes = 1000, id = display.replace(/[^a-z0-9]/g, '')) {
    const file = path.join(dir, `${id}.mp4`);
    fs.writeFileSync(file, Buffer.alloc(bytes, 7));
    const api = geminiApi(KEY, g.url);
    const f = await api.upload(file, `files/${id}`, display);
    return { api, f };
  }

  it('uploads in 8 MiB chunks, turns ACTIVE on get, answers with usage, deletes', async () => {
    const { api, f } = await uploaded('v/good', 9 * 1024 * 1024);
    assert.equal(f.name, 'files/vgood');
    assert.equal(f.state, 'PROCESSING');
    assert.equal(g.files.get('files/vgood')?.sizeBytes, 9 * 1024 * 1024);
    assert.equal(g.requests.filter((r) => r.path === '/upload/v1beta/files').length, 3, 'start + two chunks');
    await assert.rejects(
      api.generate('gemini-x', f, 'caption'),
      (e) => readGoogleError(e).status === 'FAILED_PRECONDITION' && errorAction(readGoogleError(e)) === 'final',
    );
    const active = await api.get(f.name);
    assert.equal(active.state, 'ACTIVE');
    const reply = readGeminiReply((await api.generate('gemini-x', active, 'caption')) as object);
    assert.equal(reply.kind, 'text');
    assert.ok(reply.usage.total > 263);
    await api.remove(f.name);
    assert.equal(g.files.has('files/vgood'), false);
    assert.deepEqual(g.deleted, ['files/vgood']);
  });

  it('429 carries RetryInfo, 503 is retryable, SAFETY is a blocked answer, a wrong key is API_KEY_INVALID', async () => {
    const { api, f } = await uploaded('v/rate');
    const active = await api.get(f.name);
    const e = await api.generate('m', active, 'p').catch((x: unknown) => x);
    const rate = readGoogleError(e);
    assert.deepEqual([rate.httpStatus, rate.status, rate.retryDelayMs, errorAction(rate)], [429, 'RESOURCE_EXHAUSTED', 2000, 'wait']);
    const busy = await uploaded('v/busy');
    const e2 = readGoogleError(await busy.api.generate('m', await busy.api.get(busy.f.name), 'p').catch((x: unknown) => x));
    assert.deepEqual([e2.httpStatus, errorAction(e2)], [503, 'retry']);
    const safe = await uploaded('v/safe');
    const r = readGeminiReply((await safe.api.generate('m', await safe.api.get(safe.f.name), 'p')) as object);
    assert.equal(r.kind, 'blocked');
    const wrong = geminiApi('AIzaWrongKey000000000', g.url);
    const e3 = readGoogleError(await wrong.get(f.name).catch((x: unknown) => x));
    assert.deepEqual([e3.httpStatus, e3.reasons, errorAction(e3)], [400, ['API_KEY_INVALID'], 'key']);
  });

  it('a file stays PROCESSING for its gets, by count', async () => {
    const { api, f } = await uploaded('v/late');
    assert.equal((await api.get(f.name)).state, 'PROCESSING');
    assert.equal((await api.get(f.name)).state, 'PROCESSING');
    assert.equal((await api.get(f.name)).state, 'ACTIVE');
  });
});
