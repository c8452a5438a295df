import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseAnswerLetter, scoreAnswer } from '../../../../../src/core/protocols/fp/rules/answer';
import { buildPromptText } from '../../../../../src/core/protocols/fp/rules/prompt';
import { DEFAULT_CONDITIONS, parseCondition, parseConditions } from '../../../../../src/core/protocols/fp/rules/conditions';

describe('protocol/prompt', () => {
  it('is the fixed skeleton with lettered options', () => {
    assert.equal(
      buildPromptText('What happens first?', ['a dog runs', 'a cat sits', 'nothing']),
      'Question: What happens first?\nOptions:\n(A) a dog runs\n(B) a cat sits\n(C) nothing\n' +
        "Answer with the option's letter from the given choices directly.",
    );
  });
  it('keeps markup in the question as plain text', () => {
    assert.ok(buildPromptText('<img src=x onerror=alert(1)>', ['x', 'y']).startsWith('Question: <img src=x onerror=alert(1)>\n'));
  });
});

describe('protocol/answer', () => {
  const table: [string, string][] = [
    ['B', 'B'],
    ['(B)', 'B'],
    ['B.', 'B'],
    ['B. text', 'B'],
    ['(B) is the one', 'B'],
    ['C:', 'C'],
    ['D, because', 'D'],
    ['  A\n', 'A'],
    ['The answer is B.', 'B'],
    ['answer is (C)', 'C'],
    ['Answer is: D', 'D'],
    ['Unclear from the frames.', ''],
    ['', ''],
    ['Because', ''],
    ['BC', ''],
    ['the answer is a cat', ''],
  ];
  for (const [reply, pred] of table) it(`${JSON.stringify(reply)} → ${JSON.stringify(pred)}`, () => assert.equal(parseAnswerLetter(reply), pred));
  it('never returns more than one capital letter', () => {
    fc.assert(
      fc.property(fc.string(), (s) => assert.match(parseAnswerLetter(s), /^[A-Z]?$/)),
      { numRuns: 500 },
    );
  });
  it('scores an empty prediction as wrong', () => {
    assert.equal(scoreAnswer('', 'A'), 0);
    assert.equal(scoreAnswer('A', 'A'), 1);
    assert.equal(scoreAnswer('B', 'A'), 0);
  });
});

describe('protocol/conditions', () => {
  it('parses every default condition', () => {
    assert.equal(DEFAULT_CONDITIONS.length, 13);
    for (const c of DEFAULT_CONDITIONS) assert.equal(parseCondition(c).name, c);
  });
  it('reads the ladder parameters from the name', () => {
    assert.deepEqual(parseCondition('v_blind'), { name: 'v_blind', kind: 'blind' });
    assert.deepEqual(parseCondition('v_32'), { name: 'v_32', kind: 'count', nFrames: 32, shortSide: null });
    assert.deepEqual(parseCondition('v_128_s224'), { name: 'v_128_s224', kind: 'count', nFrames: 128, shortSide: 224 });
    assert.deepEqual(parseCondition('v_fps0.25_s224'), { name: 'v_fps0.25_s224', kind: 'fps', fps: 0.25, shortSide: 224 });
    // A new ladder step needs no code change.
    assert.deepEqual(parseCondition('v_fps4_s112'), { name: 'v_fps4_s112', kind: 'fps', fps: 4, shortSide: 112 });
    assert.deepEqual(parseCondition('v_64_s280'), { name: 'v_64_s280', kind: 'count', nFrames: 64, shortSide: 280 });
  });
  it('refuses names that are not canonical or exceed the image limit', () => {
    for (const bad of ['v_032', 'v_0', 'v_fps0_s224', 'v_fps0.50_s224', 'v_fps1', 'v_32_s', 'blind', 'v_2048', 'v_32_s224 ', '../v_32']) {
      assert.throws(() => parseCondition(bad), /condition|not a condition|exceeds|> 0/, bad);
    }
  });
  it('reports every bad name of a list at once', () => {
    assert.throws(
      () => parseConditions(['v_32', 'x', 'y']),
      (e: Error) => e.message.includes("'x'") && e.message.includes("'y'"),
    );
    assert.deepEqual(
      parseConditions(['v_32', 'v_32']).map((c) => c.name),
      ['v_32'],
    );
  });
});
