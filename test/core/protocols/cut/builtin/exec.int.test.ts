// The builtin cutter's ffmpeg runner: a stop kills the running ffmpeg, a failure carries ffmpeg's last words.
import * as assert from 'node:assert/strict';
import { runFfmpegLog } from '../../../../../src/core/protocols/cut/builtin/exec';

describe('builtin cutter: ffmpeg runner (ffmpeg)', function () {
  this.timeout(20_000);

  it('kills a running ffmpeg when the signal aborts', async () => {
    const ac = new AbortController();
    // An endless source: without the kill this never ends (mocha's timeout is the bound).
    const run = runFfmpegLog(['-hide_banner', '-nostdin', '-f', 'lavfi', '-i', 'anullsrc=r=8000', '-f', 'null', '-'], 'decode forever', ac.signal);
    setImmediate(() => ac.abort());
    await assert.rejects(run, /ffmpeg stopped \(the cut was stopped\) while trying to decode forever/);
  });

  it("says what failed with ffmpeg's own words", async () => {
    await assert.rejects(runFfmpegLog(['-hide_banner', '-i', '/nonexistent/in.mp4', '-f', 'null', '-'], 'read a missing file'), (e: Error) => {
      assert.match(e.message, /^ffmpeg failed to read a missing file: exit 1: /);
      assert.match(e.message, /No such file or directory/);
      return true;
    });
  });
});
