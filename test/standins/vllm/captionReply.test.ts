// The caption role's answer and knobs, pure: 1–3 events inside the clip, the same for the same request, each shape
// the caption parser takes; the prose answer is one it refuses; malformed knobs are errors, never ignored.
import * as assert from 'node:assert/strict';
import { parseCaptionAnswer } from '../../../src/core/protocols/caption/answer';
import { captionEvents, captionGenerated, captionJson, captionProse } from '../../../src/standins/vllm/avtime/captionReply';
import { readCaptionKnobs } from '../../../src/standins/vllm/avtime/captionKnobs';
import { splitReasoning } from '../../../src/standins/vllm/avtime/caption';

describe('stand-in caption answers and knobs', () => {
  it('1–3 events within [0, d], deterministic, in every shape the parser takes', () => {
    const shapes = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const clip = `/v/video_${i}/clips/clip_0001.mp4`;
      const d = 1 + (i % 37) * 0.73;
      const events = captionEvents(clip, 'prompt', d);
      assert.deepEqual(captionEvents(clip, 'prompt', d), events);
      assert.ok(events.length >= 1 && events.length <= 3);
      for (const e of events) assert.ok(e.start_sec >= 0 && e.start_sec <= e.end_sec && e.end_sec <= d, JSON.stringify({ d, e }));
      const json = captionJson(clip, 'prompt', events);
      shapes.add(json.startsWith('[') ? 'array' : json.startsWith('{') ? 'object' : 'fenced');
      const parsed = parseCaptionAnswer(captionGenerated(clip, 'prompt', json));
      assert.ok(parsed.ok, json);
      assert.deepEqual(
        parsed.events.map((e) => [e.start_sec, e.end_sec]),
        events.map((e) => [e.start_sec, e.end_sec]),
      );
      assert.equal(parseCaptionAnswer(captionGenerated(clip, 'prompt', captionProse(events))).ok, false);
    }
    assert.deepEqual([...shapes].sort(), ['array', 'fenced', 'object']);
  });

  it('splits the thinking from the answer only with a reasoning parser', () => {
    const text = captionGenerated('/c.mp4', 'p', '[]');
    assert.deepEqual(splitReasoning(text, null), { content: text, reasoning: null });
    const split = splitReasoning(text, 'qwen3');
    assert.equal(split.content, '[]');
    assert.doesNotMatch(split.reasoning!, /think>/);
  });

  it('reads the knobs, GPU-scoped, and refuses malformed ones', () => {
    const k = readCaptionKnobs({
      FPSWEEP_STANDIN_CAPTION: 'times503=3',
      FPSWEEP_STANDIN_CAPTION_400: 'clip_0002',
      CUDA_VISIBLE_DEVICES: '1',
      FPSWEEP_STANDIN_CAPTION_503_1: 'b/',
    });
    assert.equal(k.times503, 3);
    assert.ok(k.refuse!.test('/v/clips/clip_0002.mp4'));
    assert.ok(k.unavailable!.test('/b/x.mp4'));
    assert.equal(k.notJsonFirst, null);
    assert.throws(() => readCaptionKnobs({ FPSWEEP_STANDIN_CAPTION_400: '(' }), /FPSWEEP_STANDIN_CAPTION_400: not a regular expression/);
    assert.throws(() => readCaptionKnobs({ FPSWEEP_STANDIN_CAPTION: 'minEvents=4' }), /minEvents must be ≤ maxEvents/);
    assert.throws(() => readCaptionKnobs({ FPSWEEP_STANDIN_CAPTION: 'times=2' }), /Unrecognized key/);
  });
});
