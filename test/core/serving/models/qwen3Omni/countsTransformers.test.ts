import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { countCases } from '../../../../../bench/device/omniCountCases';
import { audioFeatureFrames, audioTokensForFeatureFrames, OMNI_HOP_LENGTH } from '../../../../../src/core/serving/models/qwen3Omni/counts';

// test/fixtures/omni_counts_transformers.json: transformers 5.17's own Qwen3OmniMoeProcessor (built from the
// checkpoint's preprocessor_config.json, a tiny tokenizer, no weights) on the device machine
// (bench/device/omni_counts.py, docs/COUNTS-CHECK.md), over the cases bench/device/omniCountCases.ts makes:
// AVTime-Bench's target request (the reference's frames, and the server's one resize under the plan's bounds) and
// the caption request. Our predictions must be the processor's counts, case by case.
type Row = [string, number, number, number | null, number | null];
const fixture = JSON.parse(readFileSync(path.join(__dirname, '../../../../fixtures/omni_counts_transformers.json'), 'utf8')) as {
  seed: number;
  perKind: number;
  rows: Row[];
};
const cases = countCases(fixture.seed, fixture.perKind);
const byId = new Map(cases.map((c) => [c.id, c]));

describe('qwen3Omni counts against transformers (device fixture)', () => {
  it('has a processor count for every case the generator makes', () => {
    assert.deepEqual(
      fixture.rows.map((r) => r[0]),
      cases.map((c) => c.id),
    );
  });
  it('predicts the video and audio placeholders of every case as the processor counts them (audio padded to the hop, as vLLM does)', () => {
    const bad = fixture.rows.filter(([id, video, audio]) => {
      const p = byId.get(id)!.predicted;
      return p.video !== video || p.audio !== audio;
    });
    assert.equal(bad.length, 0, `${bad.length} of ${fixture.rows.length} differ, e.g. ${JSON.stringify(bad.slice(0, 3))}`);
  });
  it('differs from the processor on an unpadded track exactly where the hop does not divide it (why the padding matters)', () => {
    // transformers alone drops the STFT's partial last hop (floor); vLLM pads first, so the server counts ceil.
    for (const [id, , , unpadded] of fixture.rows) {
      const c = byId.get(id)!;
      if (c.audio16k === null || unpadded === null) continue;
      const floorTokens = audioTokensForFeatureFrames(Math.floor(c.audio16k / OMNI_HOP_LENGTH));
      assert.equal(unpadded, floorTokens, id);
      assert.equal(
        unpadded === c.predicted.audio,
        c.audio16k % OMNI_HOP_LENGTH === 0 || floorTokens === audioTokensForFeatureFrames(audioFeatureFrames(c.audio16k)),
        id,
      );
    }
  });
});
