// The caption viewer's model (issue 25 point 8, issue 27): the clips in order with their boundaries' sources, each
// caption placed in its clip at its offset, a video before captioning, caption text kept as text, and clip paths
// that leave the video directory refused before they can become URIs.
import * as assert from 'node:assert/strict';
import { buildViewerModel, locate, pickerVideos, timelineTime, type VideoViewerModel } from '../../../../src/core/protocols/caption/viewerModel';

function segmentsText(clipPaths = ['clips/clip_0001.mp4', 'clips/clip_0002.mp4', 'clips/clip_0003.mp4']): string {
  const bounds: [number, number, string][] = [
    [0, 7.5, 'start'],
    [7.5, 14, 'asr'],
    [14, 20, 'scene'],
  ];
  return JSON.stringify({
    input_video: '/data/src/video_a.mp4',
    duration_sec: 20,
    detectors: { asr: 'unavailable', scene: 'ffmpeg', audio_events: 'unavailable' },
    config: {},
    candidates: {},
    segments: bounds.map(([start_sec, end_sec, source], i) => ({
      index: i + 1,
      clip_path: clipPaths[i],
      start_sec,
      end_sec,
      duration_sec: end_sec - start_sec,
      boundary: { source, ...(i ? { confidence: 0.5 + i / 10 } : {}) },
      labels: { audio: [], visual: [], joint: [] },
    })),
  });
}

function model(segs: string, captions: string | null): VideoViewerModel {
  const m = buildViewerModel('video_a', segs, captions);
  if ('error' in m) throw new Error(m.error);
  return m;
}

describe('caption viewer model (issue 25 point 8)', () => {
  it('gives the clips in segments.json order with their timeline span and boundary source', () => {
    const m = model(segmentsText(), null);
    assert.deepEqual(
      m.clips.map((c) => [c.index, c.clipPath, c.start, c.end, c.source, c.confidence]),
      [
        [1, 'clips/clip_0001.mp4', 0, 7.5, 'start', null],
        [2, 'clips/clip_0002.mp4', 7.5, 14, 'asr', 0.6],
        [3, 'clips/clip_0003.mp4', 14, 20, 'scene', 0.7],
      ],
    );
    assert.equal(m.duration, 20);
    assert.equal(m.inputVideo, '/data/src/video_a.mp4');
  });

  it('works before any caption exists: clips and boundaries, no captions, nothing wrong', () => {
    const m = model(segmentsText(), null);
    assert.equal(m.captioned, false);
    assert.deepEqual(m.captions, []);
    assert.deepEqual(m.problems, []);
  });

  it("gives the cut's detectors and says it is degraded when a channel is unavailable (the builtin cutter's)", () => {
    const m = model(segmentsText(), null);
    assert.deepEqual(m.cut, {
      detectors: [
        { channel: 'asr', detector: 'unavailable' },
        { channel: 'scene', detector: 'ffmpeg' },
        { channel: 'audio_events', detector: 'unavailable' },
      ],
      unavailable: ['asr', 'audio_events'],
      degraded: true,
      degradedReason: null,
    });
    const full = JSON.parse(segmentsText()) as Record<string, unknown>;
    full.detectors = { asr: 'whisperx', scene: 'pyscenedetect', audio_events: 'panns' };
    const clean = model(JSON.stringify(full), null).cut;
    assert.deepEqual([clean.unavailable, clean.degraded, clean.degradedReason], [[], false, null]);
    // A cutter may say so itself (kept keys): degraded with its reason, even with every channel named.
    const said = model(JSON.stringify({ ...full, degraded: true, degraded_reason: 'PANNs weights missing: ran on a fallback' }), null).cut;
    assert.deepEqual([said.degraded, said.degradedReason], [true, 'PANNs weights missing: ran on a fallback']);
  });

  it('places each caption in the clip holding its start, at its offset into that clip', () => {
    const captions = [
      { start_sec: 0, end_sec: 3.2, caption: 'a door opens' },
      { start_sec: 7.5, end_sec: 10, caption: 'at the boundary' },
      { start_sec: 12.25, end_sec: 14, caption: 'inside clip 2' },
      { start_sec: 19.999, end_sec: 20, caption: 'last instant' },
    ];
    const m = model(segmentsText(), JSON.stringify(captions));
    assert.deepEqual(
      m.captions.map((c) => [c.clip, Number(c.offset.toFixed(6))]),
      [
        [0, 0],
        [1, 0],
        [1, 4.75],
        [2, 5.999],
      ],
    );
    for (const c of m.captions) assert.equal(Number(timelineTime(m.clips, c.clip, c.offset).toFixed(6)), c.start);
  });

  it('locates times before, inside and past the clips (the player never seeks out of a clip)', () => {
    const clips = [
      { start: 0, end: 5 },
      { start: 5, end: 9 },
    ];
    assert.deepEqual(locate(clips, -1), { clip: 0, offset: 0 });
    assert.deepEqual(locate(clips, 4.999), { clip: 0, offset: 4.999 });
    assert.deepEqual(locate(clips, 5), { clip: 1, offset: 0 });
    assert.deepEqual(locate(clips, 12), { clip: 1, offset: 4 });
    assert.deepEqual(locate([], 3), { clip: -1, offset: 0 });
  });

  it('keeps caption text exactly as written (markup is text, shown through text nodes)', () => {
    const text = '<img src=x onerror="alert(1)"> & <b>bold</b>';
    const m = model(segmentsText(), JSON.stringify([{ start_sec: 1, end_sec: 2, caption: text }]));
    assert.equal(m.captions[0].caption, text);
  });

  it('refuses clip paths that leave the video directory, before they become URIs', () => {
    const m = model(segmentsText(['clips/clip_0001.mp4', '../other/clips/clip_0002.mp4', '/etc/passwd']), null);
    assert.deepEqual(
      m.clips.map((c) => c.clipPath),
      ['clips/clip_0001.mp4', null, null],
    );
    assert.match(m.clips[1].refused!, /not a plain path inside the video directory/);
    assert.match(m.clips[2].refused!, /not a plain path inside the video directory/);
    assert.deepEqual(
      m.problems.map((p) => p.split(':')[0]),
      ['video_a segment 2', 'video_a segment 3'],
    );
  });

  it('says what is wrong with a bad segments.json or captions file, naming the video', () => {
    const bad = buildViewerModel('video_b', '{"segments": []}', null);
    assert.ok('error' in bad && /^video_b/.test(bad.error), JSON.stringify(bad));
    const m = model(segmentsText(), '[{"start_sec": "x"}]');
    assert.equal(m.captioned, true);
    assert.deepEqual(m.captions, []);
    assert.match(m.problems.join('\n'), /^video_a: captions_merged.json: 0\.start_sec: /);
  });

  it('lists the picker videos in name order with their state and failure reason when the run type has read them', () => {
    const detail = {
      videos: [
        { stem: 'b', state: 'failed' as const, clips: 2, clipsDone: 1, reason: 'segment 2: HTTP 400', rank: null },
        { stem: 'a', state: 'completed' as const, clips: 2, clipsDone: 2, reason: null, rank: null },
      ],
    };
    assert.deepEqual(pickerVideos(['c', 'b', 'a'], detail), [
      { stem: 'a', state: 'completed', reason: null },
      { stem: 'b', state: 'failed', reason: 'segment 2: HTTP 400' },
      { stem: 'c', state: null, reason: null },
    ]);
    assert.deepEqual(pickerVideos(['a'], null), [{ stem: 'a', state: null, reason: null }]);
  });
});
