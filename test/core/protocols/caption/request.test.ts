// The caption request of SPEC-AVTIME-DATA §3 (issue 25, point 3): parts, decoding, frames and the processor's rate.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildCaptionRequest, captionFrameCount, DEFAULT_FRAME_SAMPLING } from '../../../../src/core/protocols/caption/request';

describe('caption request (SPEC-AVTIME-DATA §3)', () => {
  it('a clip, its sidecar and the prompt; audio in video off; the seed decoding; frames and their rate', () => {
    const body = buildCaptionRequest({
      model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking',
      clipPath: '/v/video a/clips/clip_0001.mp4',
      sidecarPath: '/v/video a/clips/clip_0001.mp3',
      prompt: 'P',
      durationS: 7.5,
      totalFrames: 225,
    });
    assert.deepEqual(body, {
      model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'video_url', video_url: { url: 'file:///v/video%20a/clips/clip_0001.mp4' } },
            { type: 'audio_url', audio_url: { url: 'file:///v/video%20a/clips/clip_0001.mp3' } },
            { type: 'text', text: 'P' },
          ],
        },
      ],
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      repetition_penalty: 1.0,
      max_tokens: 32768,
      media_io_kwargs: { video: { num_frames: 30, fps: 4 } },
      mm_processor_kwargs: { use_audio_in_video: false, fps: 4 },
    });
    assert.equal(
      buildCaptionRequest({ model: 'm', clipPath: '/a.mp4', sidecarPath: '/a.mp3', prompt: 'p', durationS: 1, totalFrames: 30, returnTokenIds: true })
        .return_token_ids,
      true,
    );
    assert.throws(
      () => buildCaptionRequest({ model: 'm', clipPath: 'rel.mp4', sidecarPath: '/a.mp3', prompt: 'p', durationS: 1, totalFrames: 30 }),
      /absolute/,
    );
  });

  it('frames: ⌊d·fps⌋ within [min, max] and the clip; the processor told frames / d', () => {
    assert.equal(captionFrameCount(0.5, 15), 4, 'below the minimum: the minimum');
    assert.equal(captionFrameCount(300, 9000), 768, 'above the maximum: the maximum');
    assert.equal(captionFrameCount(2, 3), 3, 'never more than the clip has');
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 900, noNaN: true }), fc.integer({ min: 1, max: 30_000 }), (d, total) => {
        const n = captionFrameCount(d, total);
        assert.ok(n >= 1 && n <= Math.min(total, DEFAULT_FRAME_SAMPLING.maxFrames));
        if (total >= DEFAULT_FRAME_SAMPLING.minFrames) assert.ok(n >= DEFAULT_FRAME_SAMPLING.minFrames);
        const body = buildCaptionRequest({ model: 'm', clipPath: '/c.mp4', sidecarPath: '/c.mp3', prompt: 'p', durationS: d, totalFrames: total });
        assert.equal(body.media_io_kwargs.video.num_frames, n);
        assert.equal(body.mm_processor_kwargs.fps, n / d);
      }),
    );
  });
});
