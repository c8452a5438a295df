// segments.json of the builtin cutter: the spec's fields, its degradation said in the file, and which leftover clips go.
import * as assert from 'node:assert/strict';
import { BUILTIN_DEFAULTS } from '../../../../../src/core/protocols/cut/builtin/config';
import { fuseBoundaries } from '../../../../../src/core/protocols/cut/builtin/fuse';
import { BUILTIN_DETECTORS } from '../../../../../src/core/protocols/cut/builtin';
import { builtinSegmentsDoc, staleClips } from '../../../../../src/core/protocols/cut/builtin/segmentsDoc';
import { checkSegmentTimeline, parseSegmentsDoc } from '../../../../../src/core/clips/segments';

describe('builtin cutter: segments.json', () => {
  const fused = fuseBoundaries({ durationSec: 20.0004, scenes: [{ t: 12.3456, score: 80 }], pauses: [] }, BUILTIN_DEFAULTS);
  const doc = builtinSegmentsDoc({ inputVideo: '/v/a.mp4', durationSec: 20.0004, config: BUILTIN_DEFAULTS, detectors: { ...BUILTIN_DETECTORS }, fused });

  it("passes the validator's document and timeline rules, times in whole ms", () => {
    const parsed = parseSegmentsDoc('a', JSON.stringify(doc));
    assert.ok('doc' in parsed);
    assert.deepEqual(checkSegmentTimeline('a', parsed.doc), []);
    assert.deepEqual(
      parsed.doc.segments.map((x) => [x.index, x.clip_path, x.start_sec, x.end_sec, x.duration_sec]),
      [
        [1, 'clips/clip_0001.mp4', 0, 12.346, 12.346],
        [2, 'clips/clip_0002.mp4', 12.346, 20, 7.654],
      ],
    );
    assert.equal(parsed.doc.duration_sec, 20);
    assert.deepEqual(parsed.doc.segments[1].boundary, { source: 'scene', confidence: 0.314, shifted_to_pause: false, scene_sec: 12.346 });
  });

  it('says it is degraded and not AVCut, with its config in snake_case and the scdet mapping', () => {
    assert.deepEqual([doc.cutter, doc.degraded], ['fpsweep-builtin', ['asr', 'audio_events']]);
    assert.match(String(doc.degraded_reason), /not AVCut.*no ASR.*no audio-event/);
    assert.deepEqual(doc.detectors, { asr: 'unavailable', scene: 'ffmpeg-scdet', audio_events: 'unavailable' });
    const config = doc.config as Record<string, unknown>;
    assert.deepEqual([config.min_segment_sec, config.scdet_threshold, (config.render as Record<string, unknown>).write_mp3_sidecar], [6, 9.412, true]);
  });

  it("removes only clips that are not this cut's", () => {
    const names = ['clip_0001.mp4', 'clip_0001.mp3', 'clip_0002.mp4', 'clip_0003.mp4', 'clip_0003.mp3', 'notes.txt', 'clip_0000.mp4', 'clip_00002.mp4'];
    assert.deepEqual(staleClips(names, 2, true), ['clip_0003.mp4', 'clip_0003.mp3', 'clip_0000.mp4', 'clip_00002.mp4']);
    assert.deepEqual(staleClips(names, 2, false), ['clip_0001.mp3', 'clip_0003.mp4', 'clip_0003.mp3', 'clip_0000.mp4', 'clip_00002.mp4']);
  });
});
