// Detector degradation (seed 004 §2): 'unavailable' in segments.json, or a warning naming a missing detector.
import { strict as assert } from 'node:assert';
import { degradationOf, degradationWarnings, degradedDetectors } from '../../../../src/core/protocols/cut/degraded';

describe('cut: detector degradation', () => {
  it('reads unavailable, empty or missing channels of detectors', () => {
    assert.deepEqual(
      degradedDetectors({ asr: 'parakeet', scene: 'pyscenedetect', audio_events: 'panns' }).map((d) => d.channel),
      [],
    );
    assert.deepEqual(
      degradedDetectors({ asr: 'unavailable', scene: '', audio_events: 'Unavailable' }).map((d) => d.channel),
      ['asr', 'scene', 'audio_events'],
    );
    assert.deepEqual(
      degradedDetectors({ asr: 'whisperx', scene: 'pyscenedetect' }).map((d) => d.evidence),
      ['segments.json detectors.audio_events = null'],
    );
  });

  it('reads warnings that name a missing detector, and not ordinary lines', () => {
    const log = [
      'loading model nvidia/parakeet-tdt-0.6b-v2',
      'scene detection: 4 cuts found',
      'WARNING: NeMo is not installed; ASR disabled',
      "UserWarning: No module named 'scenedetect'; scene detector unavailable",
      'warn: PANNs checkpoint not found at /ckpt/Cnn14_mAP=0.431.pth, audio events disabled',
      'WARNING: ASR falling back to nothing',
    ].join('\n');
    const found = degradationWarnings(log);
    assert.deepEqual(
      found.map((d) => d.channel),
      ['asr', 'scene', 'audio_events'],
    );
    assert.match(found[0].evidence, /NeMo is not installed/);
    assert.deepEqual(degradationWarnings('scene detection: no cuts found\nrendering clip 3 of 9\nWARNING: clip 3 is short'), []);
  });

  it('one entry per channel, segments.json first', () => {
    const both = degradationOf({ asr: 'unavailable', scene: 'x', audio_events: 'y' }, 'WARNING: ASR unavailable (NeMo missing)');
    assert.equal(both.length, 1);
    assert.match(both[0].evidence, /segments\.json/);
  });
});
