// The caption viewer's reads (issue 25 point 8): the root's video directories, a video before and after captioning,
// and clip files that are not regular files inside the video directory (a symlink out, a missing file) refused
// before the panel makes a URI of them; a stem that is not a plain name of the root refused.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listVideoStems, readViewerVideo, restoredViewerTarget } from '../../../../src/extension/protocols/caption/viewerFiles';

function segments(n: number): string {
  return JSON.stringify({
    input_video: '/src/v.mp4',
    duration_sec: n * 2,
    detectors: { asr: 'unavailable', scene: 'ffmpeg', audio_events: 'unavailable' },
    config: {},
    candidates: {},
    segments: Array.from({ length: n }, (_, i) => ({
      index: i + 1,
      clip_path: `clips/clip_000${i + 1}.mp4`,
      start_sec: i * 2,
      end_sec: i * 2 + 2,
      duration_sec: 2,
      boundary: { source: i ? 'scene' : 'start' },
      labels: { audio: [], visual: [], joint: [] },
    })),
  });
}

describe('caption viewer files (issue 25 point 8)', () => {
  let root: string;
  let outside: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-viewer-'));
    outside = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-outside-'));
    const dir = path.join(root, 'video_a');
    mkdirSync(path.join(dir, 'clips'), { recursive: true });
    writeFileSync(path.join(dir, 'segments.json'), segments(3));
    writeFileSync(path.join(dir, 'clips', 'clip_0001.mp4'), 'x');
    writeFileSync(path.join(outside, 'secret.mp4'), 'x');
    symlinkSync(path.join(outside, 'secret.mp4'), path.join(dir, 'clips', 'clip_0002.mp4'));
    mkdirSync(path.join(root, 'no_segments'));
    mkdirSync(path.join(root, '.fpsweep-caption'));
    writeFileSync(path.join(root, '.fpsweep-caption', 'segments.json'), '{}');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('lists the directories holding a segments.json, not the state folder or the others', async () => {
    assert.deepEqual(await listVideoStems(root), ['video_a']);
  });

  it('gives the clip inside the directory and refuses a symlink out and a missing clip', async () => {
    const v = await readViewerVideo(root, 'video_a');
    assert.ok(!('error' in v), JSON.stringify(v));
    assert.equal(v.clipFiles[0], path.join(realpathSync(root), 'video_a', 'clips', 'clip_0001.mp4'));
    assert.equal(v.clipFiles[1], null);
    assert.equal(v.clipFiles[2], null);
    assert.match(v.model.problems.join('\n'), /segment 2: clips\/clip_0002\.mp4 resolves outside the video directory/);
    assert.match(v.model.problems.join('\n'), /segment 3: clips\/clip_0003\.mp4 does not exist/);
    assert.equal(v.model.captioned, false);
  });

  it("gives each clip's MP3 sidecar checked as its clip is (issue 36: the sound the viewer plays), none for a refused clip", async () => {
    writeFileSync(path.join(root, 'video_a', 'clips', 'clip_0001.mp3'), 'x');
    writeFileSync(path.join(root, 'video_a', 'clips', 'clip_0002.mp3'), 'x');
    let v = await readViewerVideo(root, 'video_a');
    assert.ok(!('error' in v));
    assert.deepEqual(v.sidecarFiles, [path.join(realpathSync(root), 'video_a', 'clips', 'clip_0001.mp3'), null, null]);
    // A sidecar that is a symlink out of the video directory is refused, as a clip is; the clip still plays.
    rmSync(path.join(root, 'video_a', 'clips', 'clip_0001.mp3'));
    writeFileSync(path.join(outside, 'secret.mp3'), 'x');
    symlinkSync(path.join(outside, 'secret.mp3'), path.join(root, 'video_a', 'clips', 'clip_0001.mp3'));
    v = await readViewerVideo(root, 'video_a');
    assert.ok(!('error' in v));
    assert.equal(v.sidecarFiles[0], null);
    assert.notEqual(v.clipFiles[0], null);
    assert.match(v.model.problems.join('\n'), /segment 1: the clip's MP3 sidecar: clips\/clip_0001\.mp3 resolves outside/);
  });

  it('reads the captions once captions_merged.json is there', async () => {
    writeFileSync(path.join(root, 'video_a', 'captions_merged.json'), JSON.stringify([{ start_sec: 2.5, end_sec: 4, caption: 'a dog barks' }]));
    const v = await readViewerVideo(root, 'video_a');
    assert.ok(!('error' in v));
    assert.deepEqual(
      v.model.captions.map((c) => [c.caption, c.clip, c.offset]),
      [['a dog barks', 1, 0.5]],
    );
  });

  it('refuses a stem that is not a plain directory name', async () => {
    for (const stem of ['..', '../etc', 'a/b', '.']) assert.ok('error' in (await readViewerVideo(root, stem)), stem);
  });

  it('a viewer restored after a reload goes only to a root that still holds a video directory: the saved state is checked again', async () => {
    const none: (root: string) => boolean = () => false;
    const real = realpathSync(root);
    assert.deepEqual(await restoredViewerTarget({ root, stem: 'video_a' }, none), { root: real, stem: 'video_a' });
    assert.deepEqual(await restoredViewerTarget({ root, stem: null }, none), { root: real, stem: null });
    const refused = async (state: unknown, isShown = none) => {
      const t = await restoredViewerTarget(state, isShown);
      return 'refused' in t ? t.refused : `went to ${JSON.stringify(t)}`;
    };
    assert.equal(await refused(undefined), 'its saved state is not a viewer state');
    assert.equal(await refused({ root, stem: 'video_a', extra: 1 }), 'its saved state is not a viewer state');
    assert.equal(await refused({ root: 'videos', stem: null }), 'videos is not an absolute path');
    assert.equal(await refused({ root: path.join(root, 'gone'), stem: null }), `${path.join(root, 'gone')} is gone`);
    // A folder with no video directory (here: the one outside) is never opened to the webview, whatever it says.
    assert.equal(await refused({ root: outside, stem: null }), `${realpathSync(outside)} holds no video directory now`);
    assert.equal(await refused({ root, stem: null }, (r) => r === real), `${real} is shown already`);
  });
});
