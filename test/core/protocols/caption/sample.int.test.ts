// `fpsweep avtime caption-sample` (issue 25, point 9): the videos root is made with ffmpeg through the registered verb;
// its valid video directories pass the segments.json validator (ffprobe on the real clips), the invalid one fails with
// its rule, the untracked one has clips and no segments.json; a second run keeps the sample, --fresh makes the same
// bytes again, a foreign folder is refused; the demo's step makes it in `<out>-caption`.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../../src/cli/main';
import { InputError } from '../../../../src/core/errors';
import { probeAv } from '../../../../src/core/media/ffmpeg';
import { captionDemoRoot, demoSteps } from '../../../../src/core/protocols/caption/cli/captionSample';
import { makeCaptionSample } from '../../../../src/core/protocols/caption/sample';
import { validateVideoDir, type MediaProbe } from '../../../../src/core/clips/segments';
import { captureOutput } from '../../../helpers/captureOutput';
import { readmeCommand } from '../../../helpers/readmeCommand';

const probe: MediaProbe = async (file) => {
  const p = await probeAv(file);
  return { videoDurationS: p.videoDurationS, audioDurationS: p.audioDurationS };
};

/** sha256 of every file under `dir`, by relative path. */
function hashes(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) Object.assign(out, hashes(dir, r));
    else
      out[r] = createHash('sha256')
        .update(readFileSync(path.join(dir, r)))
        .digest('hex');
  }
  return out;
}

describe('fpsweep avtime caption-sample', function () {
  this.timeout(240_000);
  let tmp: string;
  let root: string;

  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-caption-sample-'));
    root = path.join(tmp, 'cap');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('makes a videos root: valid directories pass the validator, the invalid one fails with its rule, one is untracked', async () => {
    // README's command as written (test/cli/readmeCommands.test.ts holds README to it).
    const { code, out } = await captureOutput(() => main(readmeCommand('node dist/cli.js avtime caption-sample --out /tmp/cap', tmp)));
    assert.equal(code, 0, out);
    assert.match(out, /4 valid videos \(11 clips\), invalid: video_gap \(contiguous\), untracked: untracked_extra/);
    const dirs = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(dirs.sort(), ['untracked_extra', 'video_a', 'video_b', 'video_c', 'video_d', 'video_gap']);
    for (const stem of ['video_a', 'video_b', 'video_c', 'video_d']) {
      const { doc, issues } = await validateVideoDir(path.join(root, stem), probe);
      assert.deepEqual(issues, [], stem);
      assert.ok(doc!.segments.length >= 2 && doc!.segments.length <= 4, stem);
      assert.equal(doc!.input_video, path.join(root, `${stem}.mp4`));
      const full = await probeAv(doc!.input_video);
      assert.ok(full.hasVideo && full.hasAudio && Math.abs(full.durationMs / 1000 - doc!.duration_sec) < 0.05, stem);
      for (const s of doc!.segments) {
        const clip = await probeAv(path.join(root, stem, s.clip_path));
        assert.ok(clip.hasVideo && clip.hasAudio, `${stem} ${s.clip_path}: video and audio`);
        assert.ok(existsSync(path.join(root, stem, s.clip_path.replace(/\.mp4$/, '.mp3'))));
      }
    }
    const gap = await validateVideoDir(path.join(root, 'video_gap'), probe);
    assert.deepEqual(
      gap.issues.map((i) => `${i.video} ${i.segment} ${i.rule}`),
      ['video_gap 2 contiguous'],
    );
    assert.equal(existsSync(path.join(root, 'untracked_extra', 'segments.json')), false);
    assert.ok(readdirSync(path.join(root, 'untracked_extra', 'clips')).length > 0);
  });

  it('a second run keeps the sample; --fresh makes the same bytes again; a folder holding something else is refused', async () => {
    const before = hashes(root);
    const clip = path.join(root, 'video_a', 'clips', 'clip_0001.mp4');
    const mtime = statSync(clip).mtimeMs;
    const kept = await makeCaptionSample({ out: root });
    assert.equal(kept.kept, true);
    assert.equal(statSync(clip).mtimeMs, mtime, 'nothing was rewritten');
    const again = await makeCaptionSample({ out: root, fresh: true });
    assert.equal(again.kept, false);
    assert.deepEqual(hashes(root), before, 'the same bytes (absolute paths aside, the same root)');
    const foreign = path.join(tmp, 'foreign');
    writeFileSync(path.join(tmp, 'x'), '');
    await assert.rejects(makeCaptionSample({ out: path.join(tmp, 'x') }), InputError);
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, 'mine.txt'), 'keep me');
    await assert.rejects(makeCaptionSample({ out: foreign, fresh: true }), /holds no caption sample/);
    assert.equal(readFileSync(path.join(foreign, 'mine.txt'), 'utf8'), 'keep me');
  });

  it('its demo step makes the sample in <out>-caption (--fresh passed on)', () => {
    const ctx = { out: path.join(tmp, 'demo'), fresh: true, standIn: true, env: {} };
    assert.equal(captionDemoRoot(ctx), path.join(tmp, 'demo-caption'));
    const root = path.join(tmp, 'demo-caption');
    const make = ['avtime', 'caption-sample', '--out', root, '--fresh'];
    // On the stand-in it then captions the sample (a managed server; the invalid directory makes it exit 1).
    const caption = ['avtime', 'caption', root, '--model-path', path.join(`${root}-model`, 'Qwen3-Omni-30B-A3B-Thinking'), '--gpus', '0'];
    assert.deepEqual(
      demoSteps(ctx).map((s) => [s.argv, s.okCodes ?? [0]]),
      [
        [make, [0]],
        [caption, [1]],
      ],
    );
    // On a GPU host the checkpoint is the user's to name: the demo stops at the sample.
    assert.deepEqual(
      demoSteps({ ...ctx, standIn: false }).map((s) => s.argv),
      [make],
    );
  });
});
