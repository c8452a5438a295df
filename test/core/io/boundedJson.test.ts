// The JSON bounds (issue 33, point 3): the depth scan agrees with JSON's own nesting whatever the strings hold,
// a text within the bounds parses as JSON.parse parses it, and a bound names where and which.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { checkValueBounds, JsonBoundError, jsonDepth, parseBoundedJson, readBoundedJsonFile } from '../../../src/core/io/boundedJson';
import { exitFor } from '../../../src/core/errors';

/** The nesting depth of a parsed value, counted the slow and obvious way. */
function depthOf(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('boundedJson', () => {
  it('counts the depth of any JSON text as the parsed value has it (brackets and escapes inside strings do not count)', () => {
    const tricky = fc.oneof(fc.constantFrom('[', ']', '{', '}', '\\', '"', '\\"', '\\\\'), fc.string());
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(tricky, tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        assert.equal(jsonDepth(text, 1000), depthOf(v));
        assert.deepEqual(parseBoundedJson(text), JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a text deeper than the bound before parsing it, naming file:line and the bound (exit 2)', () => {
    const deep = '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
    assert.throws(
      () => parseBoundedJson(deep, { file: 'x.jsonl', line: 7 }),
      (err: unknown) => {
        assert.ok(err instanceof JsonBoundError && err.bound === 'depth');
        const exit = exitFor(err);
        assert.equal(exit.code, 2);
        assert.match(exit.text, /^x\.jsonl:7: JSON nested deeper than the bound of 128 levels/);
        return true;
      },
    );
    const atBound = '['.repeat(128) + ']'.repeat(128);
    assert.deepEqual(parseBoundedJson(atBound), JSON.parse(atBound), 'the bound itself is accepted');
    assert.throws(() => parseBoundedJson('[' + atBound + ']'), JsonBoundError);
  });

  it('refuses a text over the size bound, and a file over it before reading it', async () => {
    assert.throws(() => parseBoundedJson('"' + 'x'.repeat(100) + '"', undefined, { maxDepth: 10, maxChars: 50 }), /over the bound of 50/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bounded-')), 'big.json');
    fs.writeFileSync(file, JSON.stringify({ a: 'x'.repeat(100) }));
    await assert.rejects(readBoundedJsonFile(file, { maxDepth: 10, maxChars: 50 }), (err: Error) => {
      assert.equal(exitFor(err).code, 2);
      assert.match(err.message, /big\.json: a JSON file of \d+ bytes, over the bound of 50/);
      return true;
    });
    assert.deepEqual(await readBoundedJsonFile(file), { a: 'x'.repeat(100) });
  });

  it('bounds a value another parser built (YAML) without recursing, and a shared node does not blow up the walk', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    assert.throws(() => checkValueBounds(deep, { file: 'c.yaml' }), /c\.yaml: nested deeper than the bound of 128/);
    let shared: unknown[] = [1];
    for (let i = 0; i < 60; i++) shared = [shared, shared]; // 2^60 paths, 61 distinct nodes
    assert.throws(() => checkValueBounds(shared, { file: 'c.yaml' }, 128, 10_000), /more than 10000 values/);
    checkValueBounds({ a: [1, { b: 2 }] }, { file: 'c.yaml' });
  });
});
