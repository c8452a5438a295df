// Issue 33, "a symlinked video directory in a caption root is skipped silently": through `fpsweep avtime caption` and
// `fpsweep status`, a child of the videos root that is a link to a video directory elsewhere is neither captioned nor
// silently dropped: the run's output and the status (text and --json) name it with its reason, and nothing is
// written into the folder it points at.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { answerOf, startCaptionFake, type CaptionFake } from '../../protocols/caption/captionFake';
import { addVideo, makeClipMedia } from '../../protocols/caption/videosRoot';
import { hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

describe('a symlinked video directory in a caption root (issue 33)', function () {
  this.timeout(90_000);
  let fake: CaptionFake;
  before(async () => {
    fake = await startCaptionFake((clip) => ({ status: 200, content: answerOf(clip) }));
  });
  after(async () => {
    await fake?.close();
    removeHostileDirs();
  });

  it('is listed with its reason by the run and by status; the folder it points at is untouched', async () => {
    const root = hostileDir('caption-linked-');
    const elsewhere = hostileDir('caption-elsewhere-');
    const media = makeClipMedia(hostileDir('caption-media-'));
    addVideo(root, 'v1', media, 1);
    addVideo(elsewhere, 'v2', media, 1);
    const before = snapshot(elsewhere);
    fs.symlinkSync(path.join(elsewhere, 'v2'), path.join(root, 'v2'));
    const reason = `a symbolic link \\(-> ${path.join(elsewhere, 'v2')}\\): a video directory must be a folder of the root itself, never a link`;

    const r = await runCli(['avtime', 'caption', root, '--base-url', fake.url, '--no-preflight', '--tick-ms', '100']);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, new RegExp(`refused v2: ${reason}`));
    assert.match(r.out, /caption: 1 done, 0 failed, 0 pending \(of 1 selected\)/);
    assert.deepEqual(snapshot(elsewhere), before, 'nothing written into the linked folder');

    const s = await runCli(['status', '--package', root]);
    assert.match(s.out, new RegExp(`\\n {2}refused v2: ${reason}`));
    const j = JSON.parse((await runCli(['status', '--package', root, '--json'])).out);
    assert.deepEqual(
      j.refused.map((x: { name: string }) => x.name),
      ['v2'],
    );
  });
});
