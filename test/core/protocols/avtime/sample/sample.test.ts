// `fpsweep avtime sample --out DIR`: a bench root that is the same twice (byte for byte, but for the absolute
// media paths in inventory.jsonl), whose videos carry an audio stream (ffprobe), whose three files pass the
// stages' own input schemas, and that `fpsweep avtime inputs` accepts.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../captureOutput';
import { readJsonl } from '../../../../../src/core/package/jsonl';
import { QuerySchema } from '../../../../../src/core/protocols/avtime/queries';
import { inventoryRowSchema, targetInputSchema, testRowSchema } from '../../../../../src/core/protocols/avtime/stages/inputSchemas';
import { listFiles, tmpDir } from '../stages/fixtures';

const quietMain = runCli;

describe('fpsweep avtime sample', function () {
  this.timeout(180_000);
  let a: string;
  let b: string;

  before(async () => {
    a = path.join(tmpDir('sample'), 'bench');
    b = path.join(tmpDir('sample'), 'bench');
    for (const dir of [a, b]) {
      const r = await quietMain(['avtime', 'sample', '--out', dir]);
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

  it('refuses a folder that is not empty (exit 2) and leaves it as it was', async () => {
    const dir = tmpDir('sample');
    fs.writeFileSync(path.join(dir, 'mine.txt'), 'keep');
    const r = await quietMain(['avtime', 'sample', '--out', dir]);
    assert.equal(r.code, 2);
    assert.match(r.err, /is not empty; choose a new folder/);
    assert.deepEqual(listFiles(dir), ['mine.txt']);
  });
});
