// Issue 43: the user's cutter stopped by a signal from outside (a scheduler's cancel signals every process of the job)
// is 'interrupted', no failure of the video; a cutter that fails on its own is still a failure; and the shared rule
// (media/stoppedChild.ts) reads ffmpeg's exit 255 as such a stop only for ffmpeg.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { commandCutter } from '../../../../src/core/protocols/cut/cutter';
import { stoppedFromOutside } from '../../../../src/core/media/stoppedChild';
import { tmpRoot } from '../caption/videosRoot';

async function cutWith(script: string) {
  const work = tmpRoot('cut-stopped-');
  return await commandCutter(['sh', '-c', script, 'cutter', '{input}'], null)
    .cut({
      stem: 'v',
      input: path.join(work, 'v.mp4'),
      staging: path.join(work, 'staging'),
      gpu: null,
      log: new PassThrough().resume(),
      signal: new AbortController().signal,
    })
    .finally(() => fs.rmSync(work, { recursive: true, force: true }));
}

describe('the user cutter stopped from outside (issue 43)', function () {
  this.timeout(30_000);

  it('killed by SIGTERM, SIGINT or SIGHUP: interrupted, not failed', async () => {
    for (const sig of ['TERM', 'INT', 'HUP']) {
      const r = await cutWith(`kill -${sig} $$`);
      assert.equal(r.ok, false);
      assert.ok(!r.ok && r.interrupted === true, `SIG${sig}: ${JSON.stringify(r)}`);
      assert.match(!r.ok ? r.reason : '', new RegExp(`the cutter sh was stopped by a signal from outside \\(SIG${sig}\\)`));
    }
  });

  it('an exit of its own (255 too) or SIGKILL stays a failure of the video', async () => {
    for (const script of ['exit 3', 'exit 255', 'kill -KILL $$']) {
      const r = await cutWith(script);
      assert.ok(!r.ok && !r.interrupted, `${script}: ${JSON.stringify(r)}`);
    }
  });

  it("ffmpeg's exit 255 (it caught the signal) is a stop only for ffmpeg", () => {
    assert.equal(stoppedFromOutside({ exitCode: 255 }, { ffmpeg: true }), true);
    assert.equal(stoppedFromOutside({ exitCode: 255 }), false);
    assert.equal(stoppedFromOutside({ signal: 'SIGTERM' }), true);
    assert.equal(stoppedFromOutside({ signal: 'SIGKILL' }), false);
    assert.equal(stoppedFromOutside({ exitCode: 1 }, { ffmpeg: true }), false);
  });
});
