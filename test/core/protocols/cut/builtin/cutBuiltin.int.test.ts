// The builtin cutter end to end on the cut sample (ffmpeg): every video's directory passes the one validator
// (segments.json + clips + sidecars, ffprobe'd), the boundaries are the ones the sample was drawn for, the cut says
// it is degraded, the same source gives the same bytes, and a stop kills ffmpeg and leaves no segments.json.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { issueText, validateVideoDir } from '../../../../../src/core/clips/segments';
import { ffprobeClipProbe } from '../../../../../src/core/clips/clipProbe';
import { runFfmpeg } from '../../../../../src/core/media/ffmpeg';
import { BUILTIN_DEFAULTS, BUILTIN_DETECTORS, cutBuiltin } from '../../../../../src/core/protocols/cut/builtin';
import { makeCutSample, planCutSample } from '../../../../../src/core/protocols/cut/sample';

const sha = async (f: string) =>
  createHash('sha256')
    .update(await fs.readFile(f))
    .digest('hex');

describe('builtin cutter on the cut sample (ffmpeg)', function () {
  this.timeout(120_000);
  let tmp: string;
  let sources: string[];

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-cut-builtin-'));
    sources = await makeCutSample(path.join(tmp, 'in'));
  });
  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('makes the listed source videos', async () => {
    assert.deepEqual(
      sources.map((f) => path.basename(f)),
      planCutSample().map((v) => v.file),
    );
    assert.deepEqual(
      await fs.readdir(path.join(tmp, 'in')).then((x) => x.sort()),
      planCutSample()
        .map((v) => v.file)
        .sort(),
    );
  });

  for (const v of planCutSample()) {
    it(`cuts ${v.file} into a valid video directory at the planned boundaries (${v.expectedStarts.join(', ')} s)`, async () => {
      const videoDir = path.join(tmp, 'out', path.basename(v.file, '.mp4'));
      const lines: string[] = [];
      const r = await cutBuiltin({ input: path.join(tmp, 'in', v.file), videoDir, config: BUILTIN_DEFAULTS, log: (l) => lines.push(l) });
      const { doc, issues } = await validateVideoDir(videoDir, ffprobeClipProbe());
      assert.deepEqual(issues.map(issueText), []);
      assert.ok(doc);
      assert.equal(r.segments, doc.segments.length);
      assert.ok(Math.abs(r.durationSec - v.durationS) < 0.05, `duration ${r.durationSec}`);
      assert.deepEqual(
        doc.segments.map((s) => s.start_sec),
        v.expectedStarts,
      );
      assert.equal(doc.input_video, path.join(tmp, 'in', v.file));
      assert.deepEqual(doc.detectors, BUILTIN_DETECTORS);
      assert.deepEqual([doc.cutter, doc.degraded], ['fpsweep-builtin', ['asr', 'audio_events']]);
      assert.match(String(doc.degraded_reason), /not AVCut/);
      assert.match(lines[0], /Degraded/);
    });
  }

  it('gives the same bytes for the same source', async () => {
    const input = path.join(tmp, 'in', 'cut_b_8s.mp4');
    const dirs = [path.join(tmp, 'same', '1'), path.join(tmp, 'same', '2')];
    for (const videoDir of dirs) await cutBuiltin({ input, videoDir, config: BUILTIN_DEFAULTS, log: () => {} });
    for (const rel of ['segments.json', 'clips/clip_0001.mp4', 'clips/clip_0001.mp3']) {
      assert.equal(await sha(path.join(dirs[1], rel)), await sha(path.join(dirs[0], rel)), rel);
    }
  });

  it("cuts into a directory cut before, leaving none of the earlier cut's clips (other files stay)", async () => {
    const videoDir = path.join(tmp, 'again');
    await fs.mkdir(path.join(videoDir, 'clips'), { recursive: true });
    for (const name of ['clip_0002.mp4', 'clip_0002.mp3', 'notes.txt']) await fs.writeFile(path.join(videoDir, 'clips', name), 'earlier\n');
    await cutBuiltin({ input: path.join(tmp, 'in', 'cut_a_short.mp4'), videoDir, config: BUILTIN_DEFAULTS, log: () => {} });
    assert.deepEqual((await fs.readdir(path.join(videoDir, 'clips'))).sort(), ['clip_0001.mp3', 'clip_0001.mp4', 'notes.txt']);
    assert.deepEqual((await validateVideoDir(videoDir, ffprobeClipProbe())).issues.map(issueText), []);
  });

  it('stops at the next clip when its signal aborts, writing no segments.json', async () => {
    const ac = new AbortController();
    const videoDir = path.join(tmp, 'stopped');
    // Abort once the signals are read: no clip is cut after that (exec.int.test.ts: a running ffmpeg is killed).
    const log = (l: string) => {
      if (l.startsWith('signals in')) ac.abort();
    };
    const input = path.join(tmp, 'in', 'cut_d_40s.mp4');
    await assert.rejects(cutBuiltin({ input, videoDir, config: BUILTIN_DEFAULTS, log, signal: ac.signal }));
    await assert.rejects(fs.access(path.join(videoDir, 'segments.json')));
  });

  it('refuses a source without an audio stream, saying why', async () => {
    const silent = path.join(tmp, 'in-noaudio', 'video_only.mp4');
    await fs.mkdir(path.dirname(silent), { recursive: true });
    await runFfmpeg(
      ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=64x48:r=10:d=2', '-c:v', 'libx264', '-threads', '1', silent],
      'make a video-only file',
    );
    await assert.rejects(cutBuiltin({ input: silent, videoDir: path.join(tmp, 'noaudio'), config: BUILTIN_DEFAULTS, log: () => {} }), /has no audio stream/);
  });

  it('fails with ffmpeg’s words on a file that is not a video', async () => {
    const bogus = path.join(tmp, 'in-bogus', 'not_video.mp4');
    await fs.mkdir(path.dirname(bogus), { recursive: true });
    await fs.writeFile(bogus, 'not a video\n');
    await assert.rejects(cutBuiltin({ input: bogus, videoDir: path.join(tmp, 'bogus'), config: BUILTIN_DEFAULTS, log: () => {} }), /ffprobe could not read/);
  });
});
