// SPEC-AVTIME-DATA §3's answer parsing and normalization (issue 25, point 4): the forms a caption answer comes in,
// properties over generated answers, and an independent recomputation (reference.py, run with Debian's python3).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseCaptionAnswer, type ClipEvent } from '../../../../src/core/protocols/caption/answer';
import { mergeVideoCaptions, normalizeClipEvents, roundMs } from '../../../../src/core/protocols/caption/normalize';

const REFERENCE = path.join(__dirname, 'reference.py');
const ev = (start_sec: number, end_sec: number, caption: string): ClipEvent => ({ start_sec, end_sec, caption });
const events = (content: string) => {
  const r = parseCaptionAnswer(content);
  assert.ok(r.ok, `expected a valid answer: ${'reason' in r ? r.reason : ''}`);
  return r.events;
};

describe('caption answers (SPEC-AVTIME-DATA §3)', () => {
  const one = [ev(0, 2.5, 'A door opens.')];

  it('a plain array, an {"events"} object, prose around the JSON, a fenced block and a <think> block all parse', () => {
    assert.deepEqual(events('[{"start_sec": 0, "end_sec": 2.5, "caption": "A door opens."}]'), one);
    assert.deepEqual(events('{"events": [{"start_sec": 0, "end_sec": 2.5, "caption": "A door opens."}]}'), one);
    assert.deepEqual(events('Here you go: [{"start_sec": 0, "end_sec": 2.5, "caption": "A door opens."}] Hope it helps.'), one);
    assert.deepEqual(
      events(
        'Draft ```json\n[{"start_sec": 9, "end_sec": 10, "caption": "no"}]\n``` final:\n' +
          '```json\n[{"start_sec": 0, "end_sec": 2.5, "caption": "A door opens."}]\n```',
      ),
      one,
    );
    const think = '<think>Maybe [{"start_sec": 1, "end_sec": 2, "caption": "wrong"}]?</think>\n[{"start_sec": 0, "end_sec": 2.5, "caption": "A door opens."}]';
    assert.deepEqual(events(think), one);
    assert.deepEqual(events('reasoning with no open tag</think>[{"start_sec":0,"end_sec":2.5,"caption":"  A  door\\n opens. "}]'), one);
  });

  it('anything else is invalid, with the reason', () => {
    const bad = [
      'no json here',
      '[]',
      '{"captions": []}',
      '[{"start_sec": "0", "end_sec": 2, "caption": "a"}]',
      '[{"start_sec": 0, "end_sec": 2, "caption": "   "}]',
      '[{"start_sec": 0, "caption": "a"}]',
      '[{"start_sec": 0, "end_sec": 2, "caption": "a"}, 7]',
      '[{"start_sec": 0, "end_sec": 2, "caption": "a"},]',
      '<think>[{"start_sec": 0, "end_sec": 2, "caption": "only in thought"}]</think> I cannot help.',
    ];
    for (const content of bad) {
      const r = parseCaptionAnswer(content);
      assert.ok(!r.ok && r.reason.length > 0, content);
    }
  });

  it('normalization: clamp, fold, pin, shift, round', () => {
    // d = 6: the second event clamps to [6, 6] and folds into the first (whose end becomes 6); the last end is pinned.
    assert.deepEqual(normalizeClipEvents([ev(0.5, 3, 'a'), ev(7, 9, 'b'), ev(3, 4.0004, 'c')], { start_sec: 10, end_sec: 16 }), [
      ev(10, 16, 'a b'),
      ev(13, 16, 'c'),
    ]);
    // A first event with end ≤ start, none kept yet: it becomes the whole clip.
    assert.deepEqual(normalizeClipEvents([ev(5, 2, 'x'), ev(1, 2, 'y')], { start_sec: 0, end_sec: 4 }), [ev(0, 4, 'x'), ev(1, 4, 'y')]);
    // Pinned, shifted, rounded half up to milliseconds; no sorting: the model's order stays.
    assert.deepEqual(normalizeClipEvents([ev(2, 3, 'late'), ev(0.25, 1.0625, 'early')], { start_sec: 0.5, end_sec: 4.5 }), [
      ev(0.5, 3.5, 'late'),
      ev(0.75, 4.5, 'early'),
    ]);
    assert.equal(roundMs(0.0625), 0.063);
    assert.equal(roundMs(7.25), 7.25);
    assert.deepEqual(
      mergeVideoCaptions([
        { span: { start_sec: 0, end_sec: 2 }, events: [ev(0, 1, 'p')] },
        { span: { start_sec: 2, end_sec: 5 }, events: [ev(0, 1, 'q')] },
      ]),
      [ev(0, 2, 'p'), ev(2, 5, 'q')],
    );
  });

  const time = fc.oneof(fc.double({ min: -20, max: 40, noNaN: true }), fc.integer({ min: -5, max: 30 }));
  const genEvent = fc.record({ start_sec: time, end_sec: time, caption: fc.stringMatching(/^[a-z]{1,6}( [a-z]{1,6}){0,2}$/) });
  const genClip = fc
    .tuple(fc.double({ min: 0, max: 500, noNaN: true }), fc.double({ min: 0.5, max: 60, noNaN: true }))
    .map(([s, d]) => ({ start_sec: s, end_sec: s + d }));

  it('properties: the clip is covered from its start to its end, inside it, every caption kept in order', () => {
    fc.assert(
      fc.property(fc.array(genEvent, { minLength: 1, maxLength: 6 }), genClip, (evs, clip) => {
        const out = normalizeClipEvents(evs, clip);
        assert.ok(out.length >= 1 && out.length <= evs.length);
        assert.equal(out[0].start_sec, roundMs(clip.start_sec));
        assert.equal(out[out.length - 1].end_sec, roundMs(clip.end_sec));
        for (const e of out) {
          assert.ok(e.start_sec >= roundMs(clip.start_sec) && e.end_sec <= roundMs(clip.end_sec) && e.start_sec <= e.end_sec, JSON.stringify(e));
          assert.equal(e.start_sec, roundMs(e.start_sec));
        }
        assert.equal(out.map((e) => e.caption).join(' '), evs.map((e) => e.caption).join(' '));
      }),
      { numRuns: 500 },
    );
  });

  it('equals an independent recomputation (reference.py) on 400 generated answers in every form', () => {
    const forms = [
      (j: string) => j,
      (j: string) => `Sure! ${j}\nThat is all.`,
      (j: string) => `<think>thinking [1, 2] {"x": 1}</think>\n${j}`,
      (j: string) => `\`\`\`json\n${j}\n\`\`\``,
      (j: string) => `{"events": ${j}}`,
      (j: string) => j.replace(/"caption":"/, '"caption":"  \t'),
      (j: string) => j.slice(0, -1), // torn: invalid
    ];
    const cases = fc
      .sample(fc.tuple(fc.array(genEvent, { minLength: 0, maxLength: 5 }), genClip, fc.nat(forms.length - 1)), { numRuns: 400, seed: 24 })
      .map(([evs, clip, f]) => ({
        content: forms[f](JSON.stringify(evs)),
        clip,
      }));
    const ref = JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE], { input: JSON.stringify(cases), encoding: 'utf8' })) as {
      ok: boolean;
      events?: ClipEvent[];
    }[];
    let valid = 0;
    cases.forEach((c, i) => {
      const r = parseCaptionAnswer(c.content);
      assert.equal(r.ok, ref[i].ok, `case ${i}: ${c.content}`);
      if (r.ok) {
        valid++;
        assert.deepEqual(normalizeClipEvents(r.events, c.clip), ref[i].events, `case ${i}: ${c.content}`);
      }
    });
    assert.ok(valid > 200 && valid < 400, `${valid} valid of 400: both kinds were exercised`);
  });
});
