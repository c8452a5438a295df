// `fpsweep avtime caption --base-url U1,U2` whose servers both stop answering: they were marked down after /health
// failed and the clips left waited for them with no end. Now every server unreachable for --fail-down seconds stops
// the run (exit 1) naming the URLs, their words and what to do, with no clip written off as failed; the same command
// resumes once they are back. The CLI runs as a process of its own; every wait is for a state, bounded.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { spawnCli, type CliProcess } from '../../../helpers/scancel';
import { exitedWithin } from '../../../helpers/procExplain';
import { waitFor } from '../../../helpers/waitFor';
import { answerOf, startCaptionFake, type CaptionFake, type FakeReply } from './captionFake';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';

const VIDEOS = ['v1', 'v2', 'v3', 'v4'];

describe('fpsweep avtime caption: every --base-url server stops answering', function () {
  this.timeout(180_000);
  let root: string;
  const fakes: CaptionFake[] = [];
  let cli: CliProcess | null = null;
  before(() => {
    root = tmpRoot('caption-down-');
    const media = makeClipMedia(tmpRoot('caption-down-media-'));
    for (const v of VIDEOS) addVideo(root, v, media, 2);
  });
  after(async () => {
    if (cli && cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await Promise.all(fakes.map((f) => f.close()));
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('exit 1 within the bound naming both URLs and what to do, no clip failed; the same command resumes to the end', async () => {
    // Each server answers one clip, then holds every request: the test ends both while clips are left.
    let answered = 0;
    const reply = (clip: string): FakeReply => (answered++ < 2 ? { status: 200, content: answerOf(clip) } : 'hold');
    const a = await startCaptionFake(reply);
    const b = await startCaptionFake(reply);
    fakes.push(a, b);
    const args = ['avtime', 'caption', root, '--base-url', `${a.url},${b.url}`, '--no-preflight', '--retry-delay-ms', '10'];
    // The bound as the knob a user sets (FPSWEEP_FAIL_DOWN, or --fail-down 1).
    const env = { FPSWEEP_FAIL_DOWN: '1' };
    cli = spawnCli(args, env);
    await waitFor(
      () => answered >= 4 || cli!.child.exitCode !== null,
      60_000,
      () => `both servers asked; it printed:\n${cli!.out()}`,
    );
    await a.close();
    await b.close();
    const stopped = await exitedWithin(cli, 30_000, 'the caption run whose servers both stopped answering did not end');
    assert.equal(stopped.code, 1, stopped.out);
    assert.match(stopped.out, /stopping: all 2 servers unreachable for 1 s \(the rule: --fail-down 1\)/);
    assert.match(stopped.out, new RegExp(`the server said: ${a.url}: ECONN\\w+.*; ${b.url}: ECONN\\w+`));
    assert.match(stopped.out, new RegExp(`do: restart the servers \\(${a.url}, ${b.url}\\): .*then run the same command again: it resumes`));
    assert.doesNotMatch(stopped.out, /failed: clip/, 'no clip written off for a server that gave no answer');
    assert.match(stopped.out, /caption: \d+ done, 0 failed, [1-9]\d* pending/);

    // Both back on their addresses, answering: the same command captions what is left.
    const again = [await startCaptionFake((clip) => ({ status: 200, content: answerOf(clip) }), Number(new URL(a.url).port))];
    again.push(await startCaptionFake((clip) => ({ status: 200, content: answerOf(clip) }), Number(new URL(b.url).port)));
    fakes.push(...again);
    cli = spawnCli(args, env);
    const done = await exitedWithin(cli, 120_000, 'the resumed caption run did not end');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, new RegExp(`caption: ${VIDEOS.length} done, 0 failed, 0 pending`));
  });
});
