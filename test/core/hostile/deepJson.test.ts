// Issue 33, attack 5: a valid row plus `"extra": [[[…]]]` 100,000 deep. Before the bounds: RangeError at
// JSON.stringify, exit 1 with a stack. Now: exit 2 naming file:line and the bound, nothing written.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../helpers/captureOutput';

const DEEP = '['.repeat(100_000) + ']'.repeat(100_000);
const row = (id: string) => ({
  id,
  videos: [`v/${id}.mp4`],
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: '<video>p' },
    { role: 'assistant', content: 'From 00 to 10, one' },
  ],
  metadata: { source: 'avtime', duration_ms: 1000, event_count: 1 },
});
/** The row's JSON with a deep `extra` key spliced in before its closing brace. */
const deepRow = (id: string) => JSON.stringify(row(id)).slice(0, -1) + `,"extra":${DEEP}}`;

function assertRefused(r: { code: number; err: string }, file: string, line: number) {
  assert.equal(r.code, 2, r.err.slice(0, 2000));
  assert.ok(r.err.includes(`${file}:${line}: JSON nested deeper than the bound of 128 levels`), r.err.slice(0, 2000));
  assert.doesNotMatch(r.err, /RangeError|\n\s+at /, 'no stack trace');
}

describe('hostile input: JSON nested 100,000 deep (issue 33, attack 5)', () => {
  it('avtime build-grpo: exit 2 with file:line and the bound, nothing written', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deep-grpo-'));
    const input = path.join(dir, 'sft.jsonl');
    fs.writeFileSync(input, [JSON.stringify(row('a')), deepRow('b')].join('\n') + '\n');
    const out = path.join(dir, 'grpo.jsonl');
    const report = path.join(dir, 'grpo.report.json');
    const r = await runCli(['avtime', 'build-grpo', '--input-jsonl', input, '--output-jsonl', out, '--report-json', report]);
    assertRefused(r, input, 2);
    assert.deepEqual(fs.readdirSync(dir), ['sft.jsonl']);
  });

  it('avtime split: the same line reader, the same refusal', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deep-split-'));
    const source = path.join(dir, 'all.jsonl');
    fs.writeFileSync(source, [JSON.stringify(row('a')), JSON.stringify(row('b')), deepRow('c')].join('\n') + '\n');
    const out = path.join(dir, 'out');
    const r = await runCli(['avtime', 'split', '--source', source, '--output-root', out, '--derive-test-ids', '--test-size', '1', '--expected-rows', '0']);
    assertRefused(r, source, 3);
    assert.ok(!fs.existsSync(out));
  });
});
