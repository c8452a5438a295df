// The caption viewer's words (media/src/protocols/caption/viewerText.ts, the webview's; no DOM here): each clip's
// boundary source with its confidence, the cut's detectors, and a degraded cut said (issue 27 point 6).
import * as assert from 'node:assert/strict';
import { buildViewerModel } from '../../../../src/core/protocols/caption/viewerModel';
import { boundaryItemText, boundaryText, cutDegradedText, detectorsText } from '../../../../media/src/protocols/caption/viewerText';

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
