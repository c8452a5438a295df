// Issue 33, attack 3, through `fpsweep avtime caption`: a symlink planted at VIDEOS/.fpsweep-caption/raw/<video>.jsonl,
// pointing at a file outside the root. The raw records are append-only history that belongs to the run: a link there
// is refused (exit 2, the link's path named, what to do), never followed and never replaced (replacing it would hide
// that someone else wrote in the root). The outside file is unchanged byte for byte.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { answerOf, startCaptionFake, type CaptionFake } from '../../protocols/caption/captionFake';
import { addVideo, makeClipMedia } from '../../protocols/caption/videosRoot';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

describe('hostile caption root: a link planted at a raw record file (issue 33, attack 3)', function () {
  this.timeout(90_000);
  let fake: CaptionFake;
  before(async () => {
    fake = await startCaptionFake((clip) => ({ status: 200, content: answerOf(clip) }));
  });
  after(async () => {
    await fake?.close();
    removeHostileDirs();
  });

  it('refuses the link with its path (exit 2); nothing is appended to the outside file', async () => {
    const root = hostileDir('caption-hostile-');
    const outside = hostileDir('caption-outside-');
    fs.writeFileSync(path.join(outside, 'victim.jsonl'), 'the outside file\n');
    const before = snapshot(outside);
    addVideo(root, 'v1', makeClipMedia(hostileDir('caption-media-')), 1);
    const link = path.join(root, '.fpsweep-caption', 'raw', 'v1.jsonl');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(outside, 'victim.jsonl'), link);

    const r = await runCli(['avtime', 'caption', root, '--base-url', fake.url, '--no-preflight', '--tick-ms', '100']);
    assert.equal(r.code, 2, r.out + r.err);
    const said = `${escaped(link)}: is a symbolic link; fpsweep writes, appends, renames and deletes only inside its root and never through a link`;
    assert.match(r.out + r.err, new RegExp(said));
    assert.doesNotMatch(r.out + r.err, /\n\s+at /, 'no stack trace');
    assert.deepEqual(snapshot(outside), before, 'the outside file unchanged');
    assert.equal(fs.readlinkSync(link), path.join(outside, 'victim.jsonl'), 'the link left for the user to see');
  });
});
