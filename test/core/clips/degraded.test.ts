// A cut's degradation said one way (SPEC-AVTIME-DATA §2): the channels segments.json names "unavailable".
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { degradedText, unavailableDetectors } from '../../../src/core/clips/degraded';

describe('a cut’s degradation (issue 27)', () => {
  it('names the channels the cut ran without, in the order of `detectors`', () => {
    assert.deepEqual(unavailableDetectors({ asr: 'unavailable', scene: 'ffmpeg', audio_events: 'Unavailable ' }), ['asr', 'audio_events']);
    assert.deepEqual(unavailableDetectors({ asr: 'whisper', scene: 'ffmpeg', audio_events: 'panns' }), []);
    assert.deepEqual(unavailableDetectors({ asr: 'None', scene: ' ', audio_events: 'DISABLED', other: 3 }), ['asr', 'scene', 'audio_events', 'other']);
  });

  it('says degraded exactly when a channel is missing or the file says so', () => {
    assert.equal(degradedText(['asr', 'audio_events']), 'degraded (no asr, audio_events)');
    assert.equal(degradedText([]), '');
    assert.equal(degradedText([], true), 'degraded');
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.constantFrom('unavailable', 'x', 'ffmpeg')), (d) => {
        const missing = unavailableDetectors(d);
        assert.equal(degradedText(missing).startsWith('degraded'), missing.length > 0);
      }),
    );
  });
});
