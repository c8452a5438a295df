// The direct DVC runner's input (SPEC-AVTIME-DATA §6): which text --prompt-style jsonl sends, and every bad row
// of a file named with file:line at once (a duplicate id, not one absolute video, a reference, no user text).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readDvcRows, rowUserText, userMessageText } from '../../../../../src/core/protocols/avtime/data/dvc/rows';

const row = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, videos: [`/m/${id}.mp4`], messages: [{ role: 'user', content: `<video>describe ${id}` }], metadata: { video_id: `v_${id}` }, ...extra });

function file(lines: string[]): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-dvc-rows-')), 'in.jsonl');
  fs.writeFileSync(f, lines.map((l) => l + '\n').join(''));
  return f;
}

describe('avtime dvc: input rows (§6)', () => {
  it("a user message's text: a string or its text parts, <video> removed, trimmed; nothing left is none", () => {
    assert.equal(userMessageText('<video>\nList the events.'), 'List the events.');
    assert.equal(
      userMessageText([
        { type: 'video', video: '/a.mp4' },
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B' },
      ]),
      'A\nB',
    );
    assert.equal(userMessageText('<video>'), null);
    assert.equal(userMessageText({ text: 'not a list' }), null);
    assert.equal(
      rowUserText([
        { role: 'system', content: 'S' },
        { role: 'user', content: '<video>' },
        { role: 'user', content: 'second' },
      ]),
      'second',
    );
  });

  it('reads good rows in file order (train style does not need user text)', async () => {
    const f = file([row('a'), row('b', { messages: [] })]);
    const { rows } = await readDvcRows(f, 'train');
    assert.deepEqual(
      rows.map((r) => [r.line, r.id, r.video_id, r.video, r.userText]),
      [
        [1, 'a', 'v_a', '/m/a.mp4', null],
        [2, 'b', 'v_b', '/m/b.mp4', null],
      ],
    );
  });

  it('names every bad row with file:line, all at once', async () => {
    const f = file([
      row('a'),
      row('a'),
      row('c', { videos: ['rel/c.mp4'] }),
      row('d', { videos: ['/m/d.mp4', '/m/e.mp4'] }),
      row('e', {
        messages: [
          { role: 'user', content: '<video>' },
          { role: 'assistant', content: 'From 00 to 10, x' },
        ],
      }),
      '{"id": "f",',
      JSON.stringify({ id: 'g', videos: ['/m/g.mp4'], messages: [] }),
    ]);
    await assert.rejects(readDvcRows(f, 'jsonl'), (err: Error) => {
      assert.match(err.message, /\(7 problems; nothing written\)/);
      const lines = [...err.message.matchAll(/in\.jsonl:(\d+):/g)].map((m) => Number(m[1]));
      assert.deepEqual(lines, [2, 3, 4, 5, 5, 6, 7], 'in line order');
      for (const re of [
        /:2: id 'a' is already used on line 1/,
        /:3: videos\[0\]: 'rel\/c\.mp4' is not an absolute path/,
        /:4: videos: expected exactly one video, got 2/,
        /:5: messages: an assistant message \(a reference\) must not reach inference/,
        /:5: messages: --prompt-style jsonl needs a user message with text/,
        /:6: not valid JSON/,
        /:7: metadata: Required/,
      ])
        assert.match(err.message, re);
      return true;
    });
  });
});
