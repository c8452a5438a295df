// build-sft's refusals (SPEC-AVTIME-DATA §4): a missing id and an id twice in the output are errors (exit 2,
// file:line, nothing written); the prompts must be in a named bench root, and without one the packaged prompts are
// used (issue 36 point 5: it exited 2 "system.txt does not exist"); a row without events is skipped, not an error.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PACKAGED_PROMPTS_VERSION, PACKAGED_SYSTEM_PROMPT, PACKAGED_TARGET_PROMPT } from '../../../../../src/core/protocols/avtime/prompts';
import { runCli } from '../../../../helpers/captureOutput';

function setup(avtime: object[], longvale: object[] | null, prompts = true) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-sft-'));
  const write = (name: string, rows: object[]) => (
    fs.writeFileSync(path.join(dir, name), rows.map((r) => JSON.stringify(r) + '\n').join('')),
    path.join(dir, name)
  );
  const bench = path.join(dir, 'bench');
  fs.mkdirSync(path.join(bench, 'prompts'), { recursive: true });
  if (prompts) {
    fs.writeFileSync(path.join(bench, 'prompts', 'target.txt'), 'T');
    fs.writeFileSync(path.join(bench, 'prompts', 'system.txt'), 'S');
  }
  const out = path.join(dir, 'sft.jsonl');
  const report = path.join(dir, 'sft.report.json');
  const args = ['avtime', 'build-sft', '--avtime-jsonl', write('a.jsonl', avtime), '--bench-root', bench, '--output-jsonl', out, '--report-json', report];
  if (longvale) args.push('--longvale-jsonl', write('l.jsonl', longvale));
  return { dir, out, report, args, run: () => runCli(args) };
}
const row = (id: string | undefined, answer = 'From 00 to 10, x') => ({
  id,
  videos: [`v/${id}.mp4`],
  messages: [{ role: 'assistant', content: answer }],
  metadata: { duration_ms: 9000 },
});

describe('avtime build-sft: refusals and skips (§4)', () => {
  it('a missing id: exit 2 at its line, nothing written', async () => {
    const s = setup([row('a'), row(undefined)], null);
    const r = await s.run();
    assert.equal(r.code, 2);
    assert.match(r.err, /a\.jsonl:2: id: missing or empty/);
    assert.ok(!fs.existsSync(s.out) && !fs.existsSync(s.report));
  });

  it('an id in the output twice (LongVALE and AVTime): exit 2 naming both places', async () => {
    const s = setup([row('same')], [row('same')]);
    const r = await s.run();
    assert.equal(r.code, 2);
    assert.match(r.err, /a\.jsonl:1: id 'same' is already in the output \(from .*l\.jsonl:1\)/);
    assert.ok(!fs.existsSync(s.out));
  });

  it('a row without events or video is skipped and counted; the rest is written with the bench prompts', async () => {
    const s = setup([row('a'), row('b', 'nothing to see'), { ...row('c'), videos: [] }], null);
    const r = await s.run();
    assert.equal(r.code, 0, r.err);
    const rows = fs
      .readFileSync(s.out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(rows, [
      {
        id: 'a',
        videos: ['v/a.mp4'],
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: '<video>T' },
          { role: 'assistant', content: 'From 00 to 10, x' },
        ],
        metadata: { source: 'avtime', duration_ms: 9000 },
      },
    ]);
    const report = JSON.parse(fs.readFileSync(s.report, 'utf8'));
    assert.deepEqual(report.counts.skipped.avtime, { no_video: 1, no_duration: 0, no_events: 1 });
  });

  it('no prompts in the bench root: exit 2 naming the file', async () => {
    const s = setup([row('a')], null, false);
    const r = await s.run();
    assert.equal(r.code, 2);
    assert.match(r.err, /prompts\/system\.txt does not exist/);
    assert.ok(!fs.existsSync(s.out));
  });

  it('no --bench-root (nor BENCH_ROOT): the packaged prompts, recorded as such in the report', async () => {
    const s = setup([row('a')], null, false);
    const i = s.args.indexOf('--bench-root');
    const args = [...s.args.slice(0, i), ...s.args.slice(i + 2)];
    const saved = process.env.BENCH_ROOT;
    delete process.env.BENCH_ROOT;
    const r = await runCli(args).finally(() => (saved === undefined ? undefined : (process.env.BENCH_ROOT = saved)));
    assert.equal(r.code, 0, r.err);
    const [first] = fs
      .readFileSync(s.out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(first.messages.slice(0, 2), [
      { role: 'system', content: PACKAGED_SYSTEM_PROMPT },
      { role: 'user', content: `<video>${PACKAGED_TARGET_PROMPT}` },
    ]);
    const report = JSON.parse(fs.readFileSync(s.report, 'utf8'));
    assert.equal(report.prompts.bench_root, null);
    assert.equal(report.prompts.user.file, `packaged:${PACKAGED_PROMPTS_VERSION}:target`);
    assert.equal(report.prompts.system.text, PACKAGED_SYSTEM_PROMPT);
  });
});
