// Bad input to split (SPEC-AVTIME-DATA §1) and build-grpo (§5): exit 2, the file:line and the rule named,
// nothing written (no output, no staging left beside it).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-bad-'));
const good = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: `avtime_${i}`,
    videos: [`v/${i}.mp4`],
    messages: [],
    metadata: { source: 'avtime', duration_ms: 1000 * (i + 1), event_count: 1 + (i % 3), ...extra },
  });
const GOOD = [0, 1, 2, 3, 4].map((i) => good(i));

function assertNothingWritten(dir: string, outputs: string[]) {
  for (const o of outputs) assert.ok(!fs.existsSync(o), `${o} was written`);
  const left = fs.readdirSync(dir).filter((n) => n.includes('staging'));
  assert.deepEqual(left, [], 'a staging file was left behind');
}

describe('avtime split: bad input is exit 2 with file:line and the rule, nothing written (§1)', () => {
  // [name, lines after the five good ones (line 6 on), the message expected after `file:6: `]
  const cases: [string, string, RegExp][] = [
    ['bad JSON', '{"id": "avtime_9",', /:6: not valid JSON/],
    ['a mistyped field', JSON.stringify({ id: 'avtime_9', videos: 'v/9.mp4' }), /:6: videos: Expected array/],
    ['a duplicate id', good(2).replace('v/2.mp4', 'v/other.mp4'), /:6: id 'avtime_2' already on line 3; expected unique ids/],
    ['a video used twice', good(9).replace('v/9.mp4', 'v/1.mp4'), /:6: video 'v\/1\.mp4' already used on line 2; the split is video-disjoint/],
    [
      'no video reference',
      JSON.stringify({ id: 'avtime_9', videos: [], metadata: { source: 'avtime', duration_ms: 5, event_count: 1 } }),
      /:6: metadata\.input_video \/ videos\[0\]: no video reference/,
    ],
    [
      'no duration',
      JSON.stringify({ id: 'avtime_9', videos: ['v/9.mp4'], metadata: { source: 'avtime', event_count: 1 } }),
      /:6: metadata\.duration_ms and metadata\.duration_sec are both missing/,
    ],
    ['a zero duration', good(9, { duration_ms: 0 }), /:6: metadata\.duration_ms gives 0 ms; expected a positive duration/],
    [
      'no event count',
      good(9, { event_count: undefined }),
      /:6: no event count: metadata\.event_count is missing and no assistant message holds a parseable non-empty event list/,
    ],
    ['a zero event count', good(9, { event_count: 0 }), /:6: metadata\.event_count: 0; expected a positive integer/],
    [
      'an empty id under the avtime label',
      JSON.stringify({ id: '', videos: ['v/9.mp4'], metadata: { source: 'avtime', duration_ms: 5, event_count: 1 } }),
      /:6: id: missing or empty/,
    ],
  ];
  for (const [name, bad, expected] of cases) {
    it(name, async () => {
      const dir = tmp();
      const source = path.join(dir, 'all.jsonl');
      fs.writeFileSync(source, [...GOOD, bad].join('\n') + '\n');
      const out = path.join(dir, 'out');
      const r = await runCli(['avtime', 'split', '--source', source, '--output-root', out, '--derive-test-ids', '--test-size', '2', '--expected-rows', '0']);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, new RegExp(`${source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${expected.source}`));
      assertNothingWritten(dir, [out]);
    });
  }

  it('invalid UTF-8 names its line', async () => {
    const dir = tmp();
    const source = path.join(dir, 'all.jsonl');
    fs.writeFileSync(source, Buffer.concat([Buffer.from(GOOD.join('\n') + '\n'), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]));
    const r = await runCli(['avtime', 'split', '--source', source, '--output-root', path.join(dir, 'out'), '--derive-test-ids', '--expected-rows', '0']);
    assert.equal(r.code, 2);
    assert.match(r.err, /all\.jsonl:6: not valid UTF-8/);
    assertNothingWritten(dir, [path.join(dir, 'out')]);
  });

  it('the retained count differs from --expected-rows (default 49977)', async () => {
    const dir = tmp();
    const source = path.join(dir, 'all.jsonl');
    fs.writeFileSync(source, GOOD.join('\n') + '\n');
    const r = await runCli(['avtime', 'split', '--source', source, '--output-root', path.join(dir, 'out'), '--derive-test-ids', '--test-size', '2']);
    assert.equal(r.code, 2);
    assert.match(r.err, /all\.jsonl: 5 rows retained; expected 49977 \(--expected-rows/);
    assertNothingWritten(dir, [path.join(dir, 'out')]);
  });

  it('frozen ids: one not retained and one listed twice, each on its line', async () => {
    const dir = tmp();
    const source = path.join(dir, 'all.jsonl');
    fs.writeFileSync(source, GOOD.join('\n') + '\n');
    const ids = path.join(dir, 'ids.jsonl');
    fs.writeFileSync(ids, ['{"id": "avtime_1"}', '{"id": "avtime_77"}', '{"id": "avtime_1"}'].join('\n') + '\n');
    const r = await runCli(['avtime', 'split', '--source', source, '--output-root', path.join(dir, 'out'), '--test-ids', ids, '--expected-rows', '5']);
    assert.equal(r.code, 2);
    assert.match(r.err, /ids\.jsonl:3: id 'avtime_1' already on line 1; expected unique test ids/);
    const missing = await runCli([
      'avtime',
      'split',
      '--source',
      source,
      '--output-root',
      path.join(dir, 'out'),
      '--test-ids',
      ids.replace('ids', 'ids2'),
      '--expected-rows',
      '5',
    ]);
    assert.equal(missing.code, 2, 'a missing ids file');
    fs.writeFileSync(ids, ['{"id": "avtime_1"}', '{"id": "avtime_77"}'].join('\n') + '\n');
    const r2 = await runCli(['avtime', 'split', '--source', source, '--output-root', path.join(dir, 'out'), '--test-ids', ids, '--expected-rows', '5']);
    assert.equal(r2.code, 2);
    assert.match(r2.err, /ids\.jsonl:2: test id 'avtime_77' is not a retained row of the source/);
    assertNothingWritten(dir, [path.join(dir, 'out')]);
  });

  it('an existing non-empty output root is refused and left as it was', async () => {
    const dir = tmp();
    const source = path.join(dir, 'all.jsonl');
    fs.writeFileSync(source, GOOD.join('\n') + '\n');
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'keep.txt'), 'old');
    const r = await runCli(['avtime', 'split', '--source', source, '--output-root', out, '--derive-test-ids', '--test-size', '2', '--expected-rows', '5']);
    assert.equal(r.code, 2);
    assert.match(r.err, /already exists and is not empty/);
    assert.deepEqual(fs.readdirSync(out), ['keep.txt']);
    fs.rmSync(out, { recursive: true });
    fs.mkdirSync(out); // an empty one is taken
    assert.equal(
      (await runCli(['avtime', 'split', '--source', source, '--output-root', out, '--derive-test-ids', '--test-size', '2', '--expected-rows', '5'])).code,
      0,
    );
    assert.deepEqual(fs.readdirSync(out).sort(), ['split_manifest.json', 'test.jsonl', 'test_ids.jsonl', 'train.jsonl']);
  });
});

describe('avtime build-grpo: bad input is exit 2 with file:line and the rule, nothing written (§5)', () => {
  const row = (id: string, answer: string | string[] | null, videos: string[] = [`v/${id}.mp4`]) =>
    JSON.stringify({
      id,
      videos,
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: '<video>p' },
        ...(answer === null ? [] : (Array.isArray(answer) ? answer : [answer]).map((content) => ({ role: 'assistant', content }))),
      ],
      metadata: { source: 'avtime', duration_ms: 1000 },
    });
  const OK = [row('a', 'From 00 to 10, one\nFrom 10 to 20, two'), row('b', 'From 05 to 99, all')];
  const cases: [string, string, RegExp][] = [
    ['bad JSON', '{"id": ', /:3: not valid JSON/],
    ['no assistant message', row('c', null), /:3: messages: 0 assistant messages; expected exactly one/],
    ['two assistant messages', row('c', ['From 00 to 10, x', 'From 00 to 10, y']), /:3: messages: 2 assistant messages; expected exactly one/],
    ['two videos', row('c', 'From 00 to 10, x', ['v/1.mp4', 'v/2.mp4']), /:3: videos: 2 video reference\(s\); expected exactly one/],
    ['a line that is not an event', row('c', 'From 00 to 10, x\nthen something'), /:3: assistant line 2 'then something': not a `From XX to YY, caption` line/],
    ['a line with start after end', row('c', 'From 30 to 10, x'), /:3: assistant line 1 'From 30 to 10, x': start after end/],
    ['three-digit buckets', row('c', 'From 00 to 100, x'), /:3: assistant line 1 .*not a `From XX to YY, caption` line/],
    [
      'events out of order',
      row('c', 'From 20 to 30, x\nFrom 10 to 40, y'),
      /:3: assistant line 2: starts at 10, before line 1's 20; expected chronological events/,
    ],
    ['an empty answer', row('c', ''), /:3: assistant content: no event line/],
    ['a duplicate id', row('a', 'From 00 to 10, x'), /:3: id 'a' already on line 1; expected unique ids/],
  ];
  async function grpo(lines: string[], extra: string[] = []) {
    const dir = tmp();
    const input = path.join(dir, 'sft.jsonl');
    fs.writeFileSync(input, lines.join('\n') + '\n');
    const out = path.join(dir, 'grpo.jsonl');
    const report = path.join(dir, 'grpo.report.json');
    const r = await runCli(['avtime', 'build-grpo', '--input-jsonl', input, '--output-jsonl', out, '--report-json', report, ...extra]);
    return { r, dir, input, out, report };
  }
  for (const [name, bad, expected] of cases) {
    it(name, async () => {
      const { r, dir, input, out, report } = await grpo([...OK, bad]);
      assert.equal(r.code, 2, r.err);
      assert.ok(r.err.includes(`${input}:3: `), r.err);
      assert.match(r.err, expected);
      assertNothingWritten(dir, [out, report]);
    });
  }

  it('--check-media: a missing video, one outside the root by .., by an absolute path and by a symlink', async () => {
    const media = tmp();
    const outside = tmp();
    fs.mkdirSync(path.join(media, 'v'));
    fs.writeFileSync(path.join(media, 'v', 'a.mp4'), 'x');
    fs.writeFileSync(path.join(outside, 'b.mp4'), 'x');
    fs.symlinkSync(path.join(outside, 'b.mp4'), path.join(media, 'v', 'link.mp4'));
    const lines = [
      row('a', 'From 00 to 10, x'),
      row('m', 'From 00 to 10, x', ['v/missing.mp4']),
      row('u', 'From 00 to 10, x', ['../' + path.basename(outside) + '/b.mp4']),
      row('abs', 'From 00 to 10, x', [path.join(outside, 'b.mp4')]),
      row('l', 'From 00 to 10, x', ['v/link.mp4']),
    ];
    const { r, dir, input, out, report } = await grpo(lines, ['--check-media', '--media-root', media]);
    assert.equal(r.code, 2, r.err);
    assert.ok(r.err.includes(`${input}:2: video 'v/missing.mp4' does not exist`), r.err);
    assert.match(r.err, new RegExp(`:3: video '\\.\\./[^']+' resolves outside --media-root`));
    assert.match(r.err, /:4: video '[^']+b\.mp4' resolves outside --media-root/);
    assert.match(r.err, /:5: video 'v\/link\.mp4' resolves to .*, outside --media-root/);
    assert.ok(!r.err.includes(':1: '), 'the good row is not named');
    assertNothingWritten(dir, [out, report]);
    const ok = await grpo([lines[0]], ['--check-media', '--media-root', media]);
    assert.equal(ok.r.code, 0, ok.r.err);
  });
});
