import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { buildTargetInputs, writeTargetInputs, TargetInputsError } from '../../../../../src/core/protocols/avtime/stages/inputs';
import { targetInputSchema } from '../../../../../src/core/protocols/avtime/stages/inputSchemas';
import { ffprobeStreams } from '../../../../../src/core/protocols/avtime/stages/mediaStreams';
import { InputError } from '../../../../../src/core/errors';
import { withEnv } from '../../fp/sweep/helpers';
import { fixtureRows, listFiles, tinyMedia, tmpDir, writeBench, type FixtureRow } from './fixtures';

async function refused(root: string): Promise<string> {
  const before = listFiles(root);
  const out = path.join(root, 'target_inputs.jsonl');
  try {
    const built = await buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), out);
    await writeTargetInputs(built, out, [path.join(root, 'target_inputs_report.json')]);
  } catch (err) {
    assert.ok(err instanceof TargetInputsError, String(err));
    assert.deepEqual(listFiles(root), before, 'a refusal writes nothing');
    return err.message;
  }
  assert.fail('expected a refusal');
}

function bench(mut: (rows: FixtureRow[]) => void, n = 3): string {
  const root = tmpDir('inputs');
  const rows = fixtureRows(root, n);
  mut(rows);
  writeBench(root, rows);
  return root;
}

describe('avtime stages: target inputs (SPEC-AVTIME §2)', function () {
  this.timeout(120_000); // ffmpeg and ffprobe run in these tests, on a shared machine
  it('builds one line per test row in test order, without the assistant message, with hashes in the report', async () => {
    const root = bench(() => undefined);
    const out = path.join(root, 'target_inputs.jsonl');
    const built = await buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), out);
    await writeTargetInputs(built, out, [path.join(root, 'target_inputs_report.json')]);
    const text = fs.readFileSync(out, 'utf8');
    assert.ok(!text.includes('reference of'), 'the assistant message never reaches the output');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => targetInputSchema.parse(JSON.parse(l)));
    assert.deepEqual(
      lines.map((l) => l.id),
      ['rec_0', 'rec_1', 'rec_2'],
    );
    assert.deepEqual(lines[1].messages, [
      { role: 'system', content: 'placeholder' },
      { role: 'user', content: '<video>' },
    ]);
    assert.equal(lines[1].videos[0], path.join(root, 'media', 'vid_001.mp4'));
    const testLine1 = fs.readFileSync(path.join(root, 'test.jsonl'), 'utf8').split('\n')[1];
    assert.equal(lines[1].metadata.test_row_sha256, createHash('sha256').update(testLine1).digest('hex'));
    const report = JSON.parse(fs.readFileSync(path.join(root, 'target_inputs_report.json'), 'utf8'));
    assert.equal(report.output.sha256, createHash('sha256').update(text).digest('hex'));
    assert.equal(
      report.inputs.test.sha256,
      createHash('sha256')
        .update(fs.readFileSync(path.join(root, 'test.jsonl')))
        .digest('hex'),
    );
    assert.deepEqual(report.counts, { test_rows: 3, inventory_rows: 3, target_inputs: 3, assistant_messages_removed: 3 });
  });

  it('refuses a duplicate stable_id, naming both lines', async () => {
    const msg = await refused(bench((r) => (r[2].inventory.stable_id = 's0')));
    assert.match(msg, /inventory\.jsonl:3: duplicate stable_id 's0' \(first on line 1\)/);
  });

  it('refuses a duplicate video_id in the inventory and in the test rows', async () => {
    const msg = await refused(
      bench((r) => {
        r[1].inventory.video_id = 'vid_000';
        (r[2].test.metadata as Record<string, unknown>).video_id = 'vid_000';
      }),
    );
    assert.match(msg, /inventory\.jsonl:2: duplicate video_id 'vid_000' \(first on line 1\)/);
    assert.match(msg, /test\.jsonl:3: duplicate metadata\.video_id 'vid_000' \(first on line 1\)/);
  });

  it('refuses a relative media path and a missing one', async () => {
    const msg = await refused(
      bench((r) => {
        r[0].inventory.resolved_media_path = 'media/vid_000.mp4';
        r[1].inventory.resolved_media_path = '/nonexistent/vid_001.mp4';
      }),
    );
    assert.match(msg, /inventory\.jsonl:1: resolved_media_path 'media\/vid_000\.mp4' is relative/);
    assert.match(msg, /inventory\.jsonl:2: resolved_media_path '\/nonexistent\/vid_001\.mp4' does not exist/);
  });

  it('refuses a row without exactly one system and one user message', async () => {
    const msg = await refused(
      bench((r) => {
        (r[0].test.messages as unknown[]).splice(0, 1); // no system
        (r[1].test.messages as unknown[]).push({ role: 'user', content: 'again' }); // two users
      }),
    );
    assert.match(msg, /test\.jsonl:1: messages have roles \["user", "assistant"\]; expected exactly one system and one user/);
    assert.match(msg, /test\.jsonl:2: messages have roles \["system", "user", "assistant", "user"\]/);
  });

  it('refuses any key in a message object other than role and content', async () => {
    const msg = await refused(bench((r) => ((r[1].test.messages as Record<string, unknown>[])[1].name = 'x')));
    assert.match(msg, /test\.jsonl:2: messages\[1\] has key\(s\) 'name'; a message holds only 'role' and 'content'/);
  });

  it('refuses a test row with no inventory row, and an inventory row no test row uses', async () => {
    const root = tmpDir('inputs');
    const rows = fixtureRows(root, 3);
    writeBench(root, rows, {
      testText:
        [rows[0], rows[1]].map((r) => JSON.stringify(r.test) + '\n').join('') + JSON.stringify({ ...rows[2].test, metadata: { video_id: 'vid_999' } }) + '\n',
    });
    const msg = await refused(root);
    assert.match(msg, /test\.jsonl:3: no inventory row has video_id 'vid_999'/);
    assert.match(msg, /inventory\.jsonl:3: inventory row video_id 'vid_002' is used by no test row/);
  });

  it('refuses a line that is not JSON or breaks the schema, with file:line', async () => {
    const root = tmpDir('inputs');
    const rows = fixtureRows(root, 2);
    writeBench(root, rows, { inventoryText: JSON.stringify(rows[0].inventory) + '\n{not json\n' });
    const msg = await refused(root);
    assert.match(msg, /inventory\.jsonl:2: not valid JSON/);
  });

  it('refuses media without an audio or a video stream (ffprobe), listing every such file on its test line', async () => {
    const root = bench((r) => {
      fs.writeFileSync(r[1].inventory.resolved_media_path as string, tinyMedia('video-only'));
      const audioOnly = path.join(path.dirname(r[3].inventory.resolved_media_path as string), 'vid_003.m4a');
      fs.writeFileSync(audioOnly, tinyMedia('audio-only'));
      r[3].inventory.resolved_media_path = audioOnly;
      fs.writeFileSync(r[2].inventory.resolved_media_path as string, 'not media at all\n');
    }, 5);
    const msg = await refused(root);
    const inv = path.join(root, 'inventory.jsonl');
    const media = (f: string) => path.join(root, 'media', f).replace(/[.]/g, '[.]');
    assert.match(msg, /\(3 problems; nothing written\)/);
    assert.match(
      msg,
      new RegExp(`test[.]jsonl:2: media '${media('vid_001.mp4')}' \\(video_id 'vid_001', ${inv.replace(/[.]/g, '[.]')}:2\\) has no audio stream`),
    );
    assert.match(msg, new RegExp(`test[.]jsonl:3: media '${media('vid_002.mp4')}' .* cannot be read by ffprobe \\(.*Invalid data`));
    assert.match(msg, new RegExp(`test[.]jsonl:4: media '${media('vid_003.m4a')}' \\(video_id 'vid_003', .*:4\\) has no video stream`));
    assert.doesNotMatch(msg, /test[.]jsonl:[15]:/);
  });

  it('ffprobeStreams: a cover picture (attached_pic) is not a video stream', async () => {
    const dir = tmpDir('probe');
    const cover = path.join(dir, 'cover.m4a');
    const lavfi = ['-f', 'lavfi', '-i', 'sine=f=440:d=0.4', '-f', 'lavfi', '-i', 'color=c=red:s=32x32:d=0.04'];
    execFileSync('ffmpeg', [
      '-loglevel',
      'error',
      '-y',
      ...lavfi,
      '-map',
      '0',
      '-map',
      '1',
      '-c:a',
      'aac',
      '-c:v',
      'mjpeg',
      '-frames:v',
      '1',
      '-disposition:v:0',
      'attached_pic',
      cover,
    ]);
    assert.deepEqual(await ffprobeStreams(cover), { video: false, audio: true });
    const av = path.join(dir, 'av.mp4');
    fs.writeFileSync(av, tinyMedia('av'));
    assert.deepEqual(await ffprobeStreams(av), { video: true, audio: true });
  });

  it('lists every media file without a stream even past the first 30 problems (an injected probe)', async () => {
    const root = bench((r) => r.slice(0, 34).forEach((x) => ((x.test.messages as Record<string, unknown>[])[0].name = 'x')), 36);
    const noAudio = new Set(['vid_000.mp4', 'vid_034.mp4', 'vid_035.mp4']);
    const probe = async (f: string) => ({ video: true, audio: !noAudio.has(path.basename(f)) });
    const err = await buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), path.join(root, 'out.jsonl'), probe).then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e as TargetInputsError,
    );
    assert.equal(err.problems.length, 37);
    for (const line of [1, 35, 36])
      assert.match(err.message, new RegExp(`test[.]jsonl:${line}: media .*vid_0${String(line - 1).padStart(2, '0')}[.]mp4.* has no audio stream`));
    assert.match(err.message, /\(\+5 more\)$/); // 37 = 30 shown first + lines 35 and 36 + 5 key problems not shown
  });

  it('without ffprobe: a clear input error (install ffmpeg or set FFPROBE_BIN), nothing written', async () => {
    const root = bench(() => undefined);
    const before = listFiles(root);
    const err = await withEnv({ FFPROBE_BIN: path.join(root, 'no-such-ffprobe') }, () =>
      buildTargetInputs(path.join(root, 'test.jsonl'), path.join(root, 'inventory.jsonl'), path.join(root, 'target_inputs.jsonl')).then(
        () => assert.fail('expected a refusal'),
        (e: unknown) => e as Error,
      ),
    );
    assert.ok(err instanceof InputError);
    assert.match(err.message, /no-such-ffprobe was not found: the inputs check every media file's streams with it; install ffmpeg or set FFPROBE_BIN/);
    assert.deepEqual(listFiles(root), before);
  });
});
