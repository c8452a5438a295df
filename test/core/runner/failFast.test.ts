// The fail-fast monitor's rules as properties: sparse failures never stop a run, the same refusal K
// times in a row always does, most of the first N does, and a decoder that never works does.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { DEFAULT_FAIL_FAST, FailFastMonitor, normalizeMessage, type RequestOutcome } from '../../../src/core/runner/failFast';
import { adviceFrom, adviseFailure } from '../../../src/core/runner/failureAdvice';

const SYMLINK_400 = (n: number) =>
  `The file path /mnt/nvme0/real/pkg/.fpsweep/frames/ab/${n}cdef0123/frame_${n}.jpg must be a subpath of ` +
  '`--allowed-local-media-path` /data/link/pkg/.fpsweep/frames. None';

describe('runner: fail-fast monitor', () => {
  it('normalises digits, paths, URLs and ids away, and keeps the words', () => {
    assert.equal(normalizeMessage(SYMLINK_400(1)), normalizeMessage(SYMLINK_400(982)));
    assert.equal(normalizeMessage('connect ECONNREFUSED 127.0.0.1:8011'), normalizeMessage('connect ECONNREFUSED 127.0.0.1:8012'));
    assert.equal(normalizeMessage('bad url file:///a/b/c.jpg here'), normalizeMessage('bad url file:///x/y.jpg here'));
    assert.equal(
      normalizeMessage('request 3f2a9c1e-1234-4abc-9def-0123456789ab failed'),
      normalizeMessage('request 00000000-aaaa-4bbb-8ccc-dddddddddddd failed'),
    );
    assert.notEqual(normalizeMessage('At most 1024 image(s) may be provided in one prompt.'), normalizeMessage('The model `x` does not exist.'));
  });

  it('never trips when each server fails at most one request in ten, in any interleaving (defaults)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.nat(), { minLength: 100, maxLength: 3000 }),
        fc.array(fc.nat(9), { minLength: 8, maxLength: 8 }),
        fc.constantFrom('request', 'server_down', 'context'),
        (servers, picks, offsets, kind) => {
          const m = new FailFastMonitor();
          const sent = new Array(servers).fill(0);
          for (const p of picks) {
            const s = p % servers;
            const failed = sent[s]++ % 10 === offsets[s];
            const o: RequestOutcome = failed ? { server: s, ok: false, kind, message: SYMLINK_400(1), status: 400 } : { server: s, ok: true };
            assert.equal(m.request(o), null);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("never trips on a 1-in-10 random failure rate over a long run (a sweep's 20k requests, fixed seeds)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer(), (servers, seed) => {
        const m = new FailFastMonitor();
        let x = seed >>> 0 || 1;
        for (let i = 0; i < 20_000; i++) {
          x ^= x << 13;
          x >>>= 0;
          x ^= x >>> 17;
          x ^= x << 5;
          x >>>= 0; // xorshift32
          const failed = x % 10 === 0;
          assert.equal(
            m.request(failed ? { server: i % servers, ok: false, kind: 'request', message: 'same', status: 400 } : { server: i % servers, ok: true }),
            null,
          );
        }
      }),
      { numRuns: 20, seed: 11 },
    );
  });

  it('always trips on the K-th identical failure in a row of one server, whatever the others do', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.array(fc.boolean(), { maxLength: 200 }), fc.array(fc.nat(3), { maxLength: 200 }), (K, prefix, others) => {
        // First N off, so only the in-a-row rule can decide; a prefix of mixed outcomes on server 0.
        const m = new FailFastMonitor({ sameInARow: K, firstRequests: 0, firstPrepared: 0 });
        for (const ok of prefix) {
          if (!ok) assert.equal(m.request({ server: 0, ok: false, kind: 'request', message: 'other', status: 400 }), null);
          assert.equal(m.request({ server: 0, ok: true }), null);
        }
        for (let i = 0; i < K; i++) {
          for (const o of others.slice(i * 2, i * 2 + 2)) {
            // Another server fails once, then answers: it never reaches K.
            assert.equal(m.request({ server: 1 + o, ok: false, kind: 'server_down', message: 'ECONNRESET', status: null }), null);
            assert.equal(m.request({ server: 1 + o, ok: true }), null);
          }
          const t = m.request({ server: 0, ok: false, kind: 'request', message: SYMLINK_400(i), status: 400 });
          if (i < K - 1) assert.equal(t, null, `tripped at ${i + 1} < ${K}`);
          else {
            assert.equal(t?.rule, 'same_in_a_row');
            assert.equal(t?.server, 0);
            assert.equal(t?.count, K);
            assert.equal(t?.message, SYMLINK_400(K - 1), "the server's own words, not the normalised form");
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('one success or another message in between restarts the count', () => {
    const m = new FailFastMonitor({ sameInARow: 3, firstRequests: 0, firstPrepared: 0 });
    const f = (msg: string): RequestOutcome => ({ server: 0, ok: false, kind: 'request', message: msg, status: 400 });
    for (let i = 0; i < 50; i++) {
      assert.equal(m.request(f('a 1')), null);
      assert.equal(m.request(f('a 2')), null);
      assert.equal(m.request(i % 2 ? { server: 0, ok: true } : f('b')), null);
    }
    assert.equal(m.request(f('b 7')), null);
    assert.equal(m.request(f('b 8')), null);
    assert.equal(m.request(f('b 9'))?.rule, 'same_in_a_row');
  });

  it('trips as soon as most of the first N requests have failed, with mixed messages and servers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 100 }), fc.array(fc.boolean(), { minLength: 100, maxLength: 100 }), (N, okPattern) => {
        const m = new FailFastMonitor({ sameInARow: 0, firstRequests: N, firstPrepared: 0 });
        let failed = 0;
        let trippedAt: number | null = null;
        for (let i = 0; i < okPattern.length && trippedAt === null; i++) {
          const ok = okPattern[i];
          if (!ok && i < N) failed++;
          const t = m.request(ok ? { server: i % 3, ok: true } : { server: i % 3, ok: false, kind: 'request', message: `m${i % 4}`, status: 400 });
          if (t) trippedAt = i;
        }
        const majority = Math.floor(N / 2) + 1;
        const firstN = okPattern.slice(0, N).filter((x) => !x).length;
        if (firstN >= majority) assert.notEqual(trippedAt, null);
        else assert.equal(trippedAt, null, `${firstN} of ${N} failed: not most`);
        if (trippedAt !== null) assert.ok(trippedAt < N && failed === majority);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores expected refusals (predicted context refusals) entirely', () => {
    const m = new FailFastMonitor({ sameInARow: 2, firstRequests: 4, firstPrepared: 1 });
    for (let i = 0; i < 100; i++) assert.equal(m.request({ server: 0, ok: false, kind: 'context', message: 'too long', status: 400, expected: true }), null);
  });

  it('decode: trips when the first M videos all fail and none decoded; never once one decoded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.array(fc.boolean(), { maxLength: 60 }), (M, videos) => {
        const m = new FailFastMonitor({ ...DEFAULT_FAIL_FAST, firstPrepared: M });
        let trip = null;
        let i = 0;
        for (; i < videos.length && !trip; i++) trip = m.prepared(videos[i] ? { ok: true } : { ok: false, message: `ffmpeg exited 1 on v${i}` });
        const firstOk = videos.indexOf(true);
        const shouldTrip = (firstOk === -1 ? videos.length : firstOk) >= M;
        assert.equal(trip !== null, shouldTrip);
        if (trip) {
          assert.equal(trip.rule, 'decode');
          assert.equal(i, M);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('runner: failure advice', () => {
  it("names vLLM's known messages in no run type's terms, has a next step for any other, and a run type's table replaces it", () => {
    assert.match(adviseFailure('Unauthorized', 401).action, /--api-key/);
    assert.match(adviseFailure('The model `Qwen/X` does not exist.', 404).action, /served-model-name/);
    assert.match(adviseFailure('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:8011', null, 'server_down').meaning, /not running/);
    const generic = adviseFailure('something new');
    assert.match(generic.action, /server's log/);
    for (const words of [SYMLINK_400(3), 'whatever']) assert.doesNotMatch(JSON.stringify(adviseFailure(words, 400, 'decode')), /fpsweep|frame|ffmpeg|65536/);
    const own = adviceFrom([{ test: (m) => m.includes('clip'), meaning: 'm', action: 'a' }], { meaning: 'u', action: 'v' });
    assert.deepEqual(
      [own('bad clip'), own('other')],
      [
        { meaning: 'm', action: 'a' },
        { meaning: 'u', action: 'v' },
      ],
    );
  });
});

describe('runner: fail-fast preparation rule in the run type words', () => {
  it("says the rule in the engine's words by default, and in the run type's when it gives them", () => {
    const generic = new FailFastMonitor({ sameInARow: 0, firstRequests: 0, firstPrepared: 2 });
    generic.prepared({ ok: false, message: 'no media' });
    const g = generic.prepared({ ok: false, message: 'no media' });
    assert.deepEqual([g?.kind, g?.detail], ['prepare', 'the first 2 jobs all failed their preparation and none was prepared (the rule: the first 2)']);
    const words = { jobs: 'clips', failed: 'failed to load', noneOk: 'none loaded', kind: 'load' };
    const own = new FailFastMonitor({ sameInARow: 0, firstRequests: 0, firstPrepared: 1 }, words);
    const t = own.prepared({ ok: false, message: 'ENOENT' });
    assert.deepEqual(
      [t?.rule, t?.kind, t?.message, t?.detail],
      ['decode', 'load', 'ENOENT', 'the first 1 clips all failed to load and none loaded (the rule: the first 1)'],
    );
  });
});
