// The caption viewer's words (media/src/protocols/caption/viewerText.ts, the webview's; no DOM here): each clip's
// boundary source with its confidence, the cut's detectors, and a degraded cut said (issue 27 point 6).
import * as assert from 'node:assert/strict';
import { buildViewerModel } from '../../../../src/core/protocols/caption/viewerModel';
import {
  BOUNDARY_LEGEND,
  boundaryItemText,
  boundaryText,
  cutDegradedText,
  detectorsText,
  positionText,
  videoOptionText,
} from '../../../../media/src/protocols/caption/viewerText';

const segments = (detectors: Record<string, string>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    input_video: '/src/a.mp4',
    duration_sec: 12,
    detectors,
    config: {},
    candidates: {},
    ...extra,
    segments: [
      { index: 1, clip_path: 'clips/clip_0001.mp4', start_sec: 0, end_sec: 6.5, duration_sec: 6.5, boundary: { source: 'start' } },
      { index: 2, clip_path: 'clips/clip_0002.mp4', start_sec: 6.5, end_sec: 12, duration_sec: 5.5, boundary: { source: 'scene', confidence: 0.8 } },
    ].map((s) => ({ ...s, labels: { audio: [], visual: [], joint: [] } })),
  });

function model(text: string) {
  const m = buildViewerModel('a', text, null);
  if ('error' in m) throw new Error(m.error);
  return m;
}

describe('caption viewer words: boundaries and the cut (issue 27 point 6)', () => {
  const builtin = model(segments({ asr: 'unavailable', scene: 'ffmpeg-scdet', audio_events: 'unavailable' }));

  it('shows each clip’s boundary source, with its confidence when the cutter gave one', () => {
    assert.deepEqual(builtin.clips.map(boundaryText), ['start', 'scene 0.80']);
    assert.deepEqual(builtin.clips.map(boundaryItemText), ['clip 1, boundary: start · 0.00 s–6.50 s', 'clip 2, boundary: scene 0.80 · 6.50 s–12.00 s']);
  });

  it('says the detectors, and that a builtin cut is degraded', () => {
    assert.equal(detectorsText(builtin.cut), 'Detectors: asr unavailable · scene ffmpeg-scdet · audio_events unavailable');
    assert.equal(cutDegradedText(builtin.cut), 'Cut degraded (no asr, audio_events)');
  });

  it('says nothing of degradation for a full cut, and the cutter’s own reason when it says it is degraded', () => {
    const full = { asr: 'whisperx', scene: 'pyscenedetect', audio_events: 'panns' };
    assert.equal(cutDegradedText(model(segments(full)).cut), '');
    assert.equal(
      cutDegradedText(model(segments(full, { degraded: true, degraded_reason: 'PANNs on CPU fallback' })).cut),
      'Cut degraded: PANNs on CPU fallback',
    );
  });
});

describe('caption viewer words: the picker, the player and the legend agree with what is shown (issue 44)', () => {
  it('a video whose captions are shown is "captioned", not "pending", when no run here recorded it', () => {
    const v = { stem: 'video_a', state: 'pending' as const, reason: null };
    assert.equal(videoOptionText(v), 'video_a — pending');
    assert.equal(videoOptionText(v, true), 'video_a — captioned');
    assert.equal(videoOptionText({ ...v, state: null }, true), 'video_a — captioned');
    // A run's own record stands: completed (by gemini) stays so.
    assert.equal(videoOptionText({ ...v, state: 'completed', backend: 'gemini' }, true), 'video_a — completed [gemini]');
  });

  it("the position names both clocks: the clip's (the player's controls) and the video's (the timeline's)", () => {
    assert.equal(
      positionText({ clip: 1, clips: 2, clipTime: 1.69, clipDuration: 2, time: 3.69, duration: 4 }),
      'clip 2 of 2: 1.69 s of 2.00 s in the clip · 3.69 s of 4.00 s in the video',
    );
  });

  it('the legend explains every word a clip block can show', () => {
    const terms = BOUNDARY_LEGEND.map(([t]) => t);
    // Every boundary source the builtin cutter writes (core/protocols/cut/builtin/fuse.ts), and the clip number.
    for (const t of ['start', 'scene', 'soft', '#n']) assert.ok(terms.includes(t), `the legend lacks ${t}`);
  });
});
