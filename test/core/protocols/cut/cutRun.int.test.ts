// `fpsweep avtime cut` with the user's cutter (issue 27's done-when), a fake AVCut (test/fixtures/cut/fakeAvcut.cjs):
// a shared stem is refused before any work; then good videos, a cutter that crashes, one that writes an invalid
// segments.json and one that reports a missing detector: the right videos are published, the others name their
// reason, an earlier good output survives a failed re-cut, and a rerun cuts only what is not done.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { readVideoState } from '../../../../src/core/protocols/cut/videoState';
import { makeClipMedia, tmpRoot } from '../caption/videosRoot';
import { addSource, callsOf, FAKE_AVCUT, fakeEnv } from './fakeAvcut';

const touch = (file: string, secondsAhead: number) => {
  const t = new Date(Date.now() + secondsAhead * 1000);
  fs.utimesSync(file, t, t);
};

describe('fpsweep avtime cut (the user cutter, failure matrix)', function () {
  this.timeout(120_000);
  let input: string;
  let output: string;
  let work: string;
  let calls: string;
  const cutterArg = () => `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`;
  const args = (...more: string[]) => ['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', cutterArg(), '--max-jobs', '2', ...more];

  before(() => {
    work = tmpRoot('cut-matrix-');
    input = path.join(work, 'in');
    output = path.join(work, 'out');
    fs.mkdirSync(input);
    const media = path.join(work, 'media');
    fs.mkdirSync(media);
    makeClipMedia(media);
    calls = path.join(work, 'calls.txt');
    fakeEnv(media, calls, {}, path.join(work, 'plan.json'));
    for (const n of ['good-a.mp4', 'good-b.MOV', 'crash.mp4', 'invalid.mkv', 'degrade.webm', 'notes.txt']) addSource(input, n);
  });
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('refuses two files with one stem before any work (exit 2, both named)', async () => {
    addSource(input, 'good-a.avi');
    const r = await runCli(args());
    fs.rmSync(path.join(input, 'good-a.avi'));
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.err, /good-a\.avi and good-a\.mp4 share the stem 'good-a'/);
    assert.equal(fs.existsSync(output), false, 'nothing written');
    assert.deepEqual(callsOf(calls), []);
  });

  it('--dry-run lists what would be cut and writes nothing', async () => {
    const r = await runCli(args('--dry-run', '--json'));
    assert.equal(r.code, 0, r.err);
    const view = JSON.parse(r.out);
    assert.deepEqual(
      view.videos.map((v: { stem: string; action: string }) => `${v.stem}: ${v.action}`),
      ['crash: cut (new)', 'degrade: cut (new)', 'good-a: cut (new)', 'good-b: cut (new)', 'invalid: cut (new)'],
    );
    assert.equal(fs.existsSync(output), false, 'nothing written');
  });

  it('publishes good cuts, fails the others with their reasons, keeps earlier outputs, and reruns only what is not done', async () => {
    const layout = new CutLayout(output);
    const first = await runCli(args());
    assert.equal(first.code, 0, first.out + first.err);
    assert.equal(callsOf(calls).length, 5);
    const before = new Map(['crash', 'invalid', 'degrade'].map((s) => [s, fs.readFileSync(path.join(output, s, 'segments.json'), 'utf8')]));

    // The three sources change, and this time their cuts go wrong.
    fs.writeFileSync(process.env.FAKE_AVCUT_PLAN!, JSON.stringify({ crash: 'crash', invalid: 'invalid', degrade: 'degrade' }));
    for (const n of ['crash.mp4', 'invalid.mkv', 'degrade.webm']) touch(path.join(input, n), 5);
    fs.writeFileSync(calls, '');
    const second = await runCli(args());
    assert.equal(second.code, 1, second.out + second.err);
    assert.deepEqual(
      callsOf(calls)
        .map((l) => l.split(' ')[0])
        .sort(),
      ['crash', 'degrade', 'invalid'],
      'the unchanged good videos are not cut again',
    );
    const reason = async (stem: string) => (await readVideoState(layout, stem))?.reason ?? '';
    assert.match(await reason('crash'), /the cutter exited with 3: .*RuntimeError: CUDA error: out of memory/);
    assert.match(await reason('invalid'), /invalid output: invalid segment 2: contiguous/);
    assert.match(await reason('degrade'), /degraded cut: audio_events unavailable .*--allow-degraded/);
    for (const [stem, text] of before) assert.equal(fs.readFileSync(path.join(output, stem, 'segments.json'), 'utf8'), text, `${stem}'s earlier output stays`);
    assert.deepEqual(fs.readdirSync(layout.stagingBase), [], 'no staging left behind');

    const status = await runCli(['status', '--package', output, '--run-type', 'cut', '--json']);
    assert.equal(status.code, 0, status.err);
    const s = JSON.parse(status.out);
    assert.deepEqual([s.total, s.completed, s.failed, s.pending, s.running], [5, 2, 3, 0, 0]);
    assert.match(s.videos.find((v: { stem: string }) => v.stem === 'crash').reason, /exited with 3/);

    // --allow-degraded publishes the degraded cut, marked; the failed ones are cut again (and fail again).
    fs.writeFileSync(calls, '');
    const third = await runCli(args('--allow-degraded'));
    assert.equal(third.code, 1, third.out + third.err);
    assert.deepEqual(
      callsOf(calls)
        .map((l) => l.split(' ')[0])
        .sort(),
      ['crash', 'degrade', 'invalid'],
    );
    const degraded = await readVideoState(layout, 'degrade');
    assert.equal(degraded?.state, 'completed');
    assert.deepEqual(degraded?.degraded, ['audio_events']);
    assert.notEqual(fs.readFileSync(path.join(output, 'degrade', 'segments.json'), 'utf8'), before.get('degrade'));
    const text = await runCli(['status', '--package', output, '--run-type', 'cut']);
    assert.match(text.out, /DEGRADED: 1 of the completed cuts ran without audio_events/);
  });
});
