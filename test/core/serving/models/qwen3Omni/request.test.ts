// Qwen3-Omni's request pieces (serving/models/qwen3Omni/request.ts) and AVTime's target request built from them:
// the body keeps its keys, their order and its bytes (a request log or a pre-flight record holds them).
import { strict as assert } from 'node:assert';
import { buildTargetRequest } from '../../../../../src/core/protocols/avtime/stages/targetRequest';
import { videoRequestFields, videoUrlPart } from '../../../../../src/core/serving/models/qwen3Omni/request';
import { targetPlan } from '../../../../../src/core/serving/models/qwen3Omni/videoPlan';

const plan = targetPlan({ width: 1280, height: 720, totalFrames: 300, fps: 30, audio: { sampleRate: 44100, samples: 441000 } }, true);

describe('Qwen3-Omni model module: request pieces', () => {
  it('the video part is a file:// URL of an absolute path; a relative one is refused', () => {
    assert.deepEqual(videoUrlPart('/media/a b.mp4'), { type: 'video_url', video_url: { url: 'file:///media/a%20b.mp4' } });
    assert.throws(() => videoUrlPart('media/a.mp4'), /must be absolute, got 'media\/a\.mp4'/);
  });

  it('audio in video rides in mm_processor_kwargs; the plan adds the frame count and the pixel bounds', () => {
    assert.deepEqual(videoRequestFields(false), { mm_processor_kwargs: { use_audio_in_video: false } });
    const f = videoRequestFields(true, plan);
    assert.deepEqual(Object.keys(f), ['mm_processor_kwargs', 'media_io_kwargs']);
    assert.deepEqual(f.media_io_kwargs, { video: { num_frames: plan.nframes } });
    assert.equal(f.mm_processor_kwargs.use_audio_in_video, true);
    assert.equal(f.mm_processor_kwargs.videos_kwargs?.do_sample_frames, false);
  });

  it("AVTime's target body: the same bytes as before the pieces moved", () => {
    assert.equal(
      JSON.stringify(buildTargetRequest('Qwen/Qwen3-Omni', '/v/x.mp4', 'Describe.', true)),
      '{"model":"Qwen/Qwen3-Omni","messages":[{"role":"user","content":[{"type":"video_url","video_url":{"url":"file:///v/x.mp4"}},' +
        '{"type":"text","text":"Describe."}]}],"temperature":0,"top_p":1,"top_k":20,"repetition_penalty":1,"max_tokens":8192,"seed":1234,' +
        '"mm_processor_kwargs":{"use_audio_in_video":true}}',
    );
    const withPlan = JSON.stringify(buildTargetRequest('m', '/v/x.mp4', 'p', false, plan));
    const px = plan.serverPixels!;
    assert.ok(
      withPlan.endsWith(
        `"seed":1234,"mm_processor_kwargs":{"use_audio_in_video":false,` +
          `"videos_kwargs":{"size":{"shortest_edge":${px.minPixels},"longest_edge":${px.maxPixels}},` +
          `"min_pixels":${px.minPixels},"max_pixels":${px.maxPixels},"do_sample_frames":false}},"media_io_kwargs":{"video":{"num_frames":${plan.nframes}}}}`,
      ),
      withPlan,
    );
  });
});
