import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { compare, type TransformersTokens } from '../../../../../bench/device/compareQwenTokens';

// test/fixtures/qwen_tokens_transformers.json: transformers 5.17's Qwen2VLImageProcessor (patch 16, merge 2,
// 65,536 / 16,777,216 px) on the device machine (bench/device/qwen_tokens_transformers.py): every size the
// protocol sends, edge cases, and a 16..4096 grid. qwenImageTokens must charge what the processor charges.
const fixture = JSON.parse(readFileSync(path.join(__dirname, '../../../../fixtures/qwen_tokens_transformers.json'), 'utf8')) as TransformersTokens;

describe('protocol/qwenTokens against transformers (device fixture)', () => {
  it('agrees on every frame size the protocol sends', () => {
    const bad = compare(fixture).mismatches.filter((m) => m.set === 'sent');
    assert.deepEqual(bad.slice(0, 5), []);
  });
  it('agrees on the edge cases and the grid, except where transformers refuses the size (aspect ratio over 200)', () => {
    // Those get a prediction here on purpose (qwenTokens.ts): one odd video must not stop the plan.
    const bad = compare(fixture).mismatches.filter((m) => m.set !== 'sent' && m.theirs !== null);
    assert.equal(bad.length, 0, `${bad.length} mismatches, e.g. ${JSON.stringify(bad.slice(0, 3))}`);
  });
});
