// Resume (SPEC-AVTIME-DATA §3): the detached worker killed with SIGKILL mid-run — after one video's outcome is
// written and while another's clip is held at the server — then a rerun: the same outputs, and no finished video
// asked again (requests counted at the fake).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { runCli } from '../../../helpers/captureOutput';
import { waitFor } from '../../../helpers/waitFor';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { readVideoOutcome } from '../../../../src/core/protocols/caption/outcome';
import { isWorkerAlive, readLock } from '../../../../src/core/runner/control';
import { answerOf, startCaptionFake, type CaptionFake } from './captionFake';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';

describe('fpsweep avtime caption: kill -9 mid-run, then rerun', function () {
  this.timeout(120_000);
  let root: string;
  let fake: CaptionFake;
  let hold = true;

  before(async () => {
    root = tmpRoot('caption-resume-');
    const media = makeClipMedia(tmpRoot('caption-media-'));
    addVideo(root, 'a-first', media, 2);
    addVideo(root, 'b-second', media, 1);
    // b-second is held until the test lets it go: the worker cannot finish before the kill.
    fake = await startCaptionFake((clip) => (clip.startsWith('b-second/') && hold ? 'hold' : { status: 200, content: answerOf(clip) }));
  });
  after(async () => {
    await fake?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('loses nothing and asks no finished video again', async () => {
    const layout = new CaptionLayout(root);
    // --max-jobs 1: the videos go one after the other, so a-first ends before b-second is asked.
    const args = ['avtime', 'caption', root, '--base-url', fake.url, '--no-preflight', '--max-jobs', '1', '--tick-ms', '100', '--retry-delay-ms', '10'];
    const started = await runCli([...args, '--detach']);
    assert.equal(started.code, 0, started.out + started.err);
    await waitFor(async () => (await readVideoOutcome(layout, 'a-first'))?.state === 'completed', 60_000, 'a-first completed by the worker');
    await waitFor(() => fake.asked.get('b-second/clip_0001') === 1, 30_000, 'b-second asked (and held)');
    const lock = await readLock(layout.runRoot);
    assert.ok(lock, 'the worker holds the lock');
    process.kill(lock.pid, 'SIGKILL');
    await waitFor(async () => !(await isWorkerAlive(layout.runRoot)), 30_000, 'the killed worker gone');
    const firstCaptions = fs.readFileSync(layout.captionsFile('a-first'), 'utf8');
    assert.equal(fs.existsSync(layout.captionsFile('b-second')), false);

    hold = false;
    const rerun = await runCli(args);
    assert.equal(rerun.code, 0, rerun.out + rerun.err);
    assert.match(rerun.out.trim().split('\n').pop()!, /caption: 2 done, 0 failed, 0 pending/);
    assert.equal(fake.asked.get('a-first/clip_0001'), 1);
    assert.equal(fake.asked.get('a-first/clip_0002'), 1);
    assert.equal(fake.asked.get('b-second/clip_0001'), 2);
    assert.equal(fs.readFileSync(layout.captionsFile('a-first'), 'utf8'), firstCaptions);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(layout.captionsFile('b-second'), 'utf8')).map((e: { caption: string }) => e.caption),
      ['b-second/clip_0001 begins folded in', 'b-second/clip_0001 ends'],
    );
  });
});
