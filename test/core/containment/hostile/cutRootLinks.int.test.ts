// Issue 33, attack 4, through `fpsweep avtime cut`: links planted in a cut's output root. The video's log
// (OUT/.fpsweep-cut/logs/videos/<stem>.log) as a link to a file outside: nothing is written to that file. OUT/.staging
// as a link to a folder X: nothing in X is deleted or written (the cut used to delete X/<stem>/ and stage in X).
// Both are refused with the link's path named, exit 2; the outside is compared byte for byte.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { cutWorkspace, FAKE_AVCUT } from '../../protocols/cut/fakeAvcut';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

describe('hostile cut output root: links planted where its state belongs (issue 33, attack 4)', function () {
  this.timeout(90_000);
  after(() => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    removeHostileDirs();
  });

  const cut = (input: string, output: string) =>
    runCli(['avtime', 'cut', '--input-root', input, '--output-root', output, '--cutter', `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`]);

  it('a video log that is a link: refused with its path, the outside file unchanged', async () => {
    const { input, output } = cutWorkspace(hostileDir('cut-hostile-log-'), ['v1.mp4'], {});
    const outside = hostileDir('cut-outside-');
    fs.writeFileSync(path.join(outside, 'victim.log'), 'the outside file\n');
    const before = snapshot(outside);
    const link = path.join(output, '.fpsweep-cut', 'logs', 'videos', 'v1.log');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(outside, 'victim.log'), link);

    const r = await cut(input, output);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.out + r.err, new RegExp(`${escaped(link)}: is a symbolic link; `));
    assert.doesNotMatch(r.out + r.err, /\n\s+at /, 'no stack trace');
    assert.deepEqual(snapshot(outside), before);
  });

  it('OUT/.staging as a link to a folder X: nothing in X deleted or written, refused with the path', async () => {
    const { input, output } = cutWorkspace(hostileDir('cut-hostile-staging-'), ['v1.mp4'], {});
    const x = hostileDir('cut-outside-x-');
    fs.mkdirSync(path.join(x, 'v1'));
    fs.writeFileSync(path.join(x, 'v1', 'precious.txt'), 'not the cut’s\n');
    const before = snapshot(x);
    fs.mkdirSync(output);
    const link = path.join(output, '.staging');
    fs.symlinkSync(x, link);

    const r = await cut(input, output);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.out + r.err, new RegExp(`${escaped(link)}: is a symbolic link; `));
    assert.deepEqual(snapshot(x), before, 'X unchanged: X/v1/ still there, nothing staged in X');
  });
});
