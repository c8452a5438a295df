// `fpsweep avtime sample --out DIR`: a bench root that is the same twice (byte for byte, but for the absolute
// media paths in inventory.jsonl), whose videos carry an audio stream (ffprobe), whose three files pass the
// stages' own input schemas, and that `fpsweep avtime inputs` accepts; with a video without audio and an
// audio-only file in it, `inputs` and `run` refuse it (exit 2) listing both on their test lines, writing nothing.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../../helpers/captureOutput';
import { readmeCommand } from '../../../../helpers/readmeCommand';
import { readJsonl } from '../../../../../src/core/package/jsonl';
import { QuerySchema } from '../../../../../src/core/protocols/avtime/queries';
import { inventoryRowSchema, targetInputSchema, testRowSchema } from '../../../../../src/core/protocols/avtime/stages/inputSchemas';
import { copyBench, listFiles, tinyMedia, tmpDir } from '../stages/fixtures';

const quietMain = runCli;

describe('fpsweep avtime sample', function () {
  this.timeout(180_000);
  let a: string;
  let b: string;

  before(async () => {
    // README's command as written, twice (test/cli/readmeCommands.test.ts holds README to it).
    const [ta, tb] = [tmpDir('sample'), tmpDir('sample')];
    a = path.join(ta, 'avs');
    b = path.join(tb, 'avs');
    for (const tmp of [ta, tb]) {
      const r = await quietMain(readmeCommand('node dist/cli.js avtime sample --out /tmp/avs', tmp));
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /AVTime sample bench: .*\n {2}7 videos \([\d.]+ s with audio\), queries: t2e-A \d+/);
    }
  });

  it('makes the same bytes twice (inventory.jsonl differs only in the bench root of its absolute paths)', () => {
    const files = listFiles(a);
    assert.deepEqual(listFiles(b), files);
    for (const want of ['test.jsonl', 'inventory.jsonl', 'benchmark_reference_manifest.jsonl', 'prompts/target.txt']) assert.ok(files.includes(want), want);
    assert.ok(files.filter((f) => f.endsWith('.mp4')).length === 7);
    for (const f of files) {
      const x = fs.readFileSync(path.join(a, f));
      const y = fs.readFileSync(path.join(b, f));
      if (f === 'inventory.jsonl') assert.equal(x.toString().split(a).join('ROOT'), y.toString().split(b).join('ROOT'));
      else assert.ok(x.equals(y), `${f} differs between two runs`);
    }
  });

  it("every video has a video and an audio stream, and its inventory sha256 and duration are the file's", async () => {
    const inv = (await readJsonl(path.join(a, 'inventory.jsonl'), inventoryRowSchema)).records.map((r) => r.value);
    assert.equal(inv.length, 7);
    for (const row of inv) {
      assert.ok(path.isAbsolute(row.resolved_media_path) && row.resolved_media_path.startsWith(a + path.sep));
      const probe = JSON.parse(
        execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type:format=duration', '-of', 'json', row.resolved_media_path]).toString(),
      );
      const kinds = (probe.streams as { codec_type: string }[]).map((s) => s.codec_type).sort();
      assert.deepEqual(kinds, ['audio', 'video'], row.resolved_media_path);
      assert.ok(
        Math.abs(Number(probe.format.duration) * 1000 - row.duration_ms) <= 50,
        `${row.video_id}: duration ${probe.format.duration} s vs ${row.duration_ms} ms`,
      );
      const sha = execFileSync('sha256sum', [row.resolved_media_path]).toString().split(' ')[0];
      assert.equal(row.sha256, sha);
    }
  });

  it("test, inventory and manifest pass the stages' own schemas; every query names a sample video", async () => {
    const test = await readJsonl(path.join(a, 'test.jsonl'), testRowSchema);
    const inv = await readJsonl(path.join(a, 'inventory.jsonl'), inventoryRowSchema);
    const man = await readJsonl(path.join(a, 'benchmark_reference_manifest.jsonl'), QuerySchema);
    assert.deepEqual([test.problems, inv.problems, man.problems], [[], [], []]);
    const vids = new Set(inv.records.map((r) => r.value.video_id));
    assert.deepEqual(new Set(test.records.map((r) => r.value.metadata.video_id)), vids);
    assert.ok(man.records.length > 0 && man.records.every((r) => vids.has(r.value.video_id)));
    const kinds = new Set(man.records.map((r) => `${r.value.direction}-${r.value.axis}`));
    assert.deepEqual([...kinds].sort(), ['e2e-A', 'e2e-V', 'e2t-A', 'e2t-V', 't2e-A', 't2e-V']);
  });

  it('`fpsweep avtime inputs` accepts it: 7 target inputs, the assistant reference removed', async () => {
    const r = await quietMain(['avtime', 'inputs', '--bench-root', a]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /target inputs built: 7 rows from 7 test rows and 7 inventory rows, \d+ assistant messages removed/);
    const rows = await readJsonl(path.join(a, 'target_inputs.jsonl'), targetInputSchema);
    assert.deepEqual(rows.problems, []);
    assert.equal(rows.records.length, 7);
  });

  /** A copy of sample bench `a` with its inventory pointed at the copy. */
  function copyOfA(): string {
    const dir = copyBench(a, 'sample');
    for (const f of ['target_inputs.jsonl', 'target_inputs_report.json']) fs.rmSync(path.join(dir, f), { force: true });
    return dir;
  }
  const NOWHERE = ['--target-endpoints', 'http://127.0.0.1:9,http://127.0.0.1:9', '--judge-endpoint', 'http://127.0.0.1:9'];

  it('with one video without audio and one audio-only file: `inputs` and `run` refuse it (exit 2), both listed with their test lines', async () => {
    const dir = copyOfA();
    const inv = (await readJsonl(path.join(dir, 'inventory.jsonl'), inventoryRowSchema)).records.map((r) => r.value);
    const testLines = fs.readFileSync(path.join(dir, 'test.jsonl'), 'utf8').split('\n');
    const lineOf = (vid: string) => 1 + testLines.findIndex((l) => l.includes(`"video_id":"${vid}"`));
    const [mute, audioOnly] = [inv[1], inv[4]];
    fs.writeFileSync(mute.resolved_media_path, tinyMedia('video-only'));
    fs.writeFileSync(audioOnly.resolved_media_path, tinyMedia('audio-only'));
    const before = listFiles(dir);
    const out = path.join(tmpDir('sample'), 'run');
    for (const args of [['inputs'], ['run', '--output-root', out, ...NOWHERE]]) {
      const r = await quietMain(['avtime', ...args, '--bench-root', dir]);
      assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
      assert.match(r.err, /target inputs not built \(2 problems; nothing written\)/);
      const at = (vid: string) => `${path.join(dir, 'test.jsonl')}:${lineOf(vid)}: media '${path.join(dir, 'videos', `${vid}.mp4`)}'`;
      assert.ok(r.err.includes(`${at(mute.video_id)} (video_id '${mute.video_id}'`), r.err);
      assert.match(r.err, new RegExp(`${mute.video_id}'.*has no audio stream`));
      assert.ok(r.err.includes(`${at(audioOnly.video_id)} (video_id '${audioOnly.video_id}'`), r.err);
      assert.match(r.err, new RegExp(`${audioOnly.video_id}'.*has no video stream`));
      assert.deepEqual(listFiles(dir), before, 'nothing written into the bench root');
      assert.equal(fs.existsSync(out), false, 'no output root');
    }
  });

  it('target inputs built before a file lost its audio: `run` refuses (exit 2) naming the target-input line, and makes no output root', async () => {
    const dir = copyOfA();
    assert.equal((await quietMain(['avtime', 'inputs', '--bench-root', dir])).code, 0);
    const inv = (await readJsonl(path.join(dir, 'inventory.jsonl'), inventoryRowSchema)).records.map((r) => r.value);
    fs.writeFileSync(inv[6].resolved_media_path, tinyMedia('video-only'));
    const out = path.join(tmpDir('sample'), 'run');
    const r = await quietMain(['avtime', 'run', '--bench-root', dir, '--output-root', out, ...NOWHERE]);
    assert.equal(r.code, 2, r.err);
    assert.ok(
      r.err.includes(`${path.join(dir, 'target_inputs.jsonl')}:7: media '${inv[6].resolved_media_path}' (video_id '${inv[6].video_id}') has no audio stream`),
      r.err,
    );
    assert.equal(fs.existsSync(out), false);
  });

  it('refuses a folder that is not empty (exit 2) and leaves it as it was', async () => {
    const dir = tmpDir('sample');
    fs.writeFileSync(path.join(dir, 'mine.txt'), 'keep');
    const r = await quietMain(['avtime', 'sample', '--out', dir]);
    assert.equal(r.code, 2);
    assert.match(r.err, /is not empty; choose a new folder/);
    assert.deepEqual(listFiles(dir), ['mine.txt']);
  });
});
