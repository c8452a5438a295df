import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { readJsonl, parseJsonlText } from '../../../src/core/package/jsonl';
import { itemSchema, manifestRowSchema } from '../../../src/core/protocols/fp/package/schemas';
import { tempDir, itemLine } from '../protocols/fp/plan/fixture';

describe('package/jsonl', () => {
  it('reports bad lines with file, line and what was expected, and still reads the others', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'B.jsonl');
    const lines = [
      itemLine('B', { item_id: 'i1', video_id: 'v1' }),
      '{"item_id": "i2", "benchmark": "B"', // cut JSON
      itemLine('B', { item_id: 'i3', video_id: 'v3' }).replace('"B"}', '"b"}'), // answer not A..Z
      '', // blank: not a record
      itemLine('B', { item_id: 'i5', video_id: 'v5' }),
    ];
    await fs.writeFile(file, lines.join('\r\n'));
    const res = await readJsonl(file, itemSchema, { expected: 'an item line' });
    assert.deepEqual(
      res.records.map((r) => [r.line, r.value.item_id]),
      [
        [1, 'i1'],
        [5, 'i5'],
      ],
    );
    assert.equal(res.problems.length, 2);
    assert.equal(res.problems[0].file, file);
    assert.equal(res.problems[0].line, 2);
    assert.match(res.problems[0].message, /not valid JSON/);
    assert.match(res.problems[0].message, /expected an item line/);
    assert.equal(res.problems[1].line, 3);
    assert.match(res.problems[1].message, /answer: must be one letter A\.\.Z/);
  });

  it('rejects ids and hashes that are not plain names', () => {
    const text = [
      JSON.stringify({ benchmark: 'B', video_id: '../etc', hash: 'h1' }),
      JSON.stringify({ benchmark: 'B', video_id: 'v2', hash: 'a/b' }),
      JSON.stringify({ benchmark: 'B', video_id: 'v3', hash: 'x\\y' }),
      JSON.stringify({ benchmark: 'B', video_id: 'v4', hash: 'nul\u0000' }),
      JSON.stringify({ benchmark: 'B', video_id: 'v5', hash: 'ok_hash' }),
    ].join('\n');
    const res = parseJsonlText(text, 'm.jsonl', manifestRowSchema);
    assert.deepEqual(
      res.records.map((r) => r.value.hash),
      ['ok_hash'],
    );
    assert.deepEqual(
      res.problems.map((p) => p.line),
      [1, 2, 3, 4],
    );
    for (const p of res.problems) assert.match(p.message, /plain name/);
  });

  it('reads a first line after a byte-order mark', () => {
    const res = parseJsonlText('\ufeff{"benchmark": "B", "video_id": "v", "hash": "h"}\n', 'm.jsonl', manifestRowSchema);
    assert.deepEqual(res.problems, []);
    assert.equal(res.records[0].value.hash, 'h');
  });

  it('a schema error names the field path', () => {
    const res = parseJsonlText('{"a": {"b": "x"}}\n', 'f', z.object({ a: z.object({ b: z.number() }) }));
    assert.equal(res.records.length, 0);
    assert.match(res.problems[0].message, /^a\.b: Expected number, received string/);
  });
});
