// Resume per clip with the Gemini backend (issue 35; seed §3: "its resume granularity is one clip"): the detached
// worker killed with SIGKILL mid-video — once two clips have their JSON and the third is held at the stand-in —
// then a rerun: the two finished clips are not asked again, the held clip's upload (left by the kill) is deleted
// by name before anything else, and the video completes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { waitFor } from '../../../helpers/waitFor';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { clipCaptionsFile } from '../../../../src/core/protocols/caption/gemini/clipFile';
import { isWorkerAlive, readLock } from '../../../../src/core/runner/control';
import { clearSecrets } from '../../../../src/core/security/secrets';
import { startStandinGemini, type StandinGemini } from '../../../../src/standins/gemini/server';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';
import { geminiCaptionArgs } from './geminiArgs';

const KEY = 'AIzaSyResume-Secret-0123456789abcd';

describe('fpsweep avtime caption --backend gemini: kill -9 mid-video, then rerun', function () {
  this.timeout(180_000);
  let root: string;
  let g: StandinGemini;
  let hold = true;
  const saved = process.env.GEMINI_API_KEY;

  before(async () => {
    root = tmpRoot('gemini-resume-');
    addVideo(root, 'long', makeClipMedia(tmpRoot('gemini-media-')), 3);
    g = await startStandinGemini({ apiKey: KEY, faults: (name) => (name === 'long/clip_0003' && hold ? { hold: true } : {}) });
    process.env.GEMINI_API_KEY = KEY;
  });
  after(async () => {
    await g?.close();
    if (saved === undefined) delete process.env.GEMINI_API_KEY;
    else process.env.GEMINI_API_KEY = saved;
    clearSecrets();
    if (!process.env.KEEP) fs.rmSync(root, { recursive: true, force: true });
  });

  it('asks no finished clip again and deletes the killed run’s upload', async () => {
    const layout = new CaptionLayout(root);
    const dir = path.join(root, 'long');
    // --max-inflight-clips 1: the clips go one after the other, so clips 1 and 2 have their JSON before 3 is asked.
    const args = geminiCaptionArgs(root, g.url);
    const started = await runCli([...args, '--detach']);
    assert.equal(started.code, 0, started.out + started.err);
    await waitFor(() => fs.existsSync(clipCaptionsFile(dir, 2)), 90_000, 'clip 2 captioned by the worker');
    await waitFor(() => g.asked.get('long/clip_0003') === 1, 30_000, 'clip 3 asked (and held)');
    const lock = await readLock(layout.runRoot);
    assert.ok(lock, 'the worker holds the lock');
    process.kill(lock.pid, 'SIGKILL');
    await waitFor(async () => !(await isWorkerAlive(layout.runRoot)), 30_000, 'the killed worker gone');
    assert.equal(fs.existsSync(layout.captionsFile('long')), false);
    const leftover = [...g.files.values()].find((f) => f.displayName === 'long/clip_0003');
    assert.ok(leftover, 'the killed clip’s upload is still on the service');
    const firstClip = fs.readFileSync(clipCaptionsFile(dir, 1), 'utf8');

    hold = false;
    const rerun = await runCli(args);
    assert.equal(rerun.code, 0, rerun.out + rerun.err);
    assert.equal(g.asked.get('long/clip_0001'), 1);
    assert.equal(g.asked.get('long/clip_0002'), 1);
    assert.equal(g.asked.get('long/clip_0003'), 2);
    assert.match(rerun.out, new RegExp(`deleted ${leftover.name} \\(long/clip_0003\\), uploaded by an earlier run`));
    assert.equal(g.files.size, 0, 'every upload deleted, the leftover too');
    assert.equal(fs.readFileSync(clipCaptionsFile(dir, 1), 'utf8'), firstClip, 'a finished clip is not rewritten');
    const merged = JSON.parse(fs.readFileSync(layout.captionsFile('long'), 'utf8'));
    assert.equal(merged.length, 6);
  });
});
