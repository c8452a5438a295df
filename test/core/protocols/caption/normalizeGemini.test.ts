// The Gemini path's looser reading and normalization (issue 35, point 3; seed §3 "Gemini fallback"): the forms it
// reads that the Qwen path refuses, and properties over generated answers (fast-check).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCaptionAnswer, type ClipEvent } from '../../../../src/core/protocols/caption/answer';
import { normalizeGeminiClipEvents, looseSeconds, parseGeminiAnswer } from '../../../../src/core/protocols/caption/normalizeGemini';

const ev = (start_sec: number, end_sec: number, caption: string): ClipEvent => ({ start_sec, end_sec, caption });

describe('the Gemini normalizer (gemini-loose-v1)', () => {
  it('reads what the Qwen path refuses: string times, mm:ss, start/end/text keys, one event object, a bad event among good ones', () => {
    const answer = '[{"start": "00:01.5", "end": "2.5s", "text": " A door\\n opens. "}, {"start_sec": "x", "end_sec": 1, "caption": "skipped"}]';
    assert.equal(parseCaptionAnswer(answer).ok, false, 'the Qwen path refuses it');
    const r = parseGeminiAnswer(answer);
    assert.ok(r.ok);
    assert.deepEqual(r.events, [ev(1.5, 2.5, 'A door opens.')]);
    const single = parseGeminiAnswer('{"start_sec": 0, "end_sec": 1, "description": "one"}');
    assert.ok(single.ok);
    assert.deepEqual(single.events, [ev(0, 1, 'one')]);
    assert.equal(looseSeconds('1:02:03.5'), 3723.5);
    assert.equal(looseSeconds('abc'), null);
    assert.equal(parseGeminiAnswer('[{"start_sec": 0}]').ok, false);
    assert.equal(parseGeminiAnswer('no json').ok, false);
  });

  it('swaps a reversed pair, drops zero-length events, pins nothing (the Qwen path folds and pins)', () => {
    const clip = { start_sec: 10, end_sec: 14 };
    assert.deepEqual(normalizeGeminiClipEvents([ev(1, 2, 'a'), ev(3, 2.5, 'b'), ev(2, 2, 'c')], clip), [ev(11, 12, 'a'), ev(12.5, 13, 'b')]);
    assert.deepEqual(normalizeGeminiClipEvents([ev(2, 2, 'c'), ev(9, 9, 'd')], clip), [ev(10, 14, 'c d')]);
  });

  const clipArb = fc.record({ start_sec: fc.double({ min: 0, max: 1000, noNaN: true }), len: fc.double({ min: 0.1, max: 60, noNaN: true }) });
  const eventArb = fc.record({
    start_sec: fc.double({ min: -100, max: 200, noNaN: true }),
    end_sec: fc.double({ min: -100, max: 200, noNaN: true }),
    caption: fc.string({ minLength: 1 }).filter((s) => s.trim().length > 0),
  });

  it('properties: every event inside the clip, start ≤ end, captions kept in order, at most as many events, pure', () => {
    fc.assert(
      fc.property(clipArb, fc.array(eventArb, { minLength: 1, maxLength: 6 }), (c, events) => {
        const clip = { start_sec: c.start_sec, end_sec: c.start_sec + c.len };
        const out = normalizeGeminiClipEvents(events, clip);
        assert.ok(out.length >= 1 && out.length <= events.length);
        for (const e of out) {
          assert.ok(e.start_sec >= Math.floor(clip.start_sec * 1000) / 1000 - 1e-9 && e.end_sec <= Math.ceil(clip.end_sec * 1000) / 1000 + 1e-9);
          assert.ok(e.start_sec <= e.end_sec);
          assert.equal(e.start_sec, Math.round(e.start_sec * 1000) / 1000);
        }
        const captions = events.map((e) => e.caption);
        if (out.length > 1 || captions.includes(out[0].caption)) for (const e of out) assert.ok(captions.includes(e.caption));
        assert.deepEqual(normalizeGeminiClipEvents(events, clip), out);
      }),
      { numRuns: 300 },
    );
  });

  it('property: an answer the Qwen parser accepts is read to the same events', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 4 }), (events) => {
        const text = JSON.stringify(events);
        const strict = parseCaptionAnswer(text);
        const loose = parseGeminiAnswer(text);
        if (strict.ok) assert.deepEqual(loose, strict);
      }),
      { numRuns: 200 },
    );
  });
});
