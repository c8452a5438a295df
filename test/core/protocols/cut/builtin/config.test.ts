// The builtin cutter's --config: the seed's defaults, readable keys, and errors that name the key.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { load } from 'js-yaml';
import { BUILTIN_DEFAULTS, builtinConfigFrom, configToJson } from '../../../../../src/core/protocols/cut/builtin/config';
import { InputError } from '../../../../../src/core/errors';

const refuses = (doc: unknown, pattern: RegExp) =>
  assert.throws(
    () => builtinConfigFrom(doc, 'cut.yaml'),
    (e: Error) => e instanceof InputError && pattern.test(e.message),
  );

describe('builtin cutter: config', () => {
  it("has the seed's published defaults", () => {
    assert.deepEqual(
      [
        BUILTIN_DEFAULTS.sceneThreshold,
        BUILTIN_DEFAULTS.minBoundaryGapS,
        BUILTIN_DEFAULTS.minSegmentS,
        BUILTIN_DEFAULTS.softThresholdS,
        BUILTIN_DEFAULTS.writeMp3Sidecar,
      ],
      [24.0, 5.0, 6.0, 16.0, true],
    );
    assert.deepEqual(builtinConfigFrom(undefined, 'x'), BUILTIN_DEFAULTS);
    assert.deepEqual(builtinConfigFrom(null, 'x'), BUILTIN_DEFAULTS);
  });

  it('reads a YAML document, the rest staying at the defaults', () => {
    const c = builtinConfigFrom(load('min_segment_sec: 4\nsoft_threshold_sec: 20\nrender:\n  write_mp3_sidecar: false\n'), 'cut.yaml');
    assert.deepEqual(c, { ...BUILTIN_DEFAULTS, minSegmentS: 4, softThresholdS: 20, writeMp3Sidecar: false });
  });

  it('names an unknown key, nested or not, and the file', () => {
    refuses({ min_segment: 4 }, /^cut\.yaml: unknown key "min_segment"/);
    refuses({ render: { mp3: true } }, /unknown key "render\.mp3"/);
  });

  it('names a mistyped key and what was expected', () => {
    refuses({ min_segment_sec: 'six' }, /"min_segment_sec" must be a number of seconds, not string/);
    refuses({ render: { write_mp3_sidecar: 'yes' } }, /"render\.write_mp3_sidecar" must be true or false/);
    refuses(['a'], /must be a mapping/);
    refuses({ scene_threshold: 300 }, /"scene_threshold"/);
    refuses({ silence_noise_db: 0 }, /"silence_noise_db"/);
  });

  it('refuses a soft threshold under twice the spacing (a long segment could not be split within the rules)', () => {
    refuses({ soft_threshold_sec: 11.9 }, /soft_threshold_sec \(11\.9\) must be at least twice/);
    assert.equal(builtinConfigFrom({ soft_threshold_sec: 12 }, 'x').softThresholdS, 12);
  });

  it('reads back what it writes into segments.json (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          sceneThreshold: fc.double({ min: 0, max: 255, noNaN: true }),
          minBoundaryGapS: fc.double({ min: 0.1, max: 10, noNaN: true }),
          minSegmentS: fc.double({ min: 0.1, max: 10, noNaN: true }),
          softExtra: fc.double({ min: 0, max: 30, noNaN: true }),
          writeMp3Sidecar: fc.boolean(),
          silenceNoiseDb: fc.double({ min: -90, max: -0.1, noNaN: true }),
          silenceMinS: fc.double({ min: 0.01, max: 3, noNaN: true }),
          pauseShiftWindowS: fc.double({ min: 0, max: 5, noNaN: true }),
        }),
        ({ softExtra, ...r }) => {
          const c = { ...r, softThresholdS: 2 * Math.max(r.minSegmentS, r.minBoundaryGapS) + 0.001 + softExtra };
          assert.deepEqual(builtinConfigFrom(JSON.parse(JSON.stringify(configToJson(c))), 'x'), c);
        },
      ),
    );
  });
});
