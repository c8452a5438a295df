import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { selectExpression } from '../../../../../src/core/protocols/fp/frames/selectExpr';

// A long video's union of frames is hundreds of scattered indices: ffmpeg must accept the expression
// and let through exactly those frames.
describe('frames/selectExpression on long, scattered unions', function () {
  this.timeout(60_000);
  let dir: string;
  let video: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fp-select-'));
    video = path.join(dir, 'v.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=32x32:rate=2', '-t', '600', '-pix_fmt', 'yuv420p', '-y', video]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const count of [150, 400]) {
    it(`${count} scattered frames pass ffmpeg's parser and select exactly them`, () => {
      const indices = Array.from({ length: count }, (_, i) => i * 3);
      const expr = selectExpression(indices);
      const out = execFileSync('ffmpeg', ['-v', 'error', '-i', video, '-vf', `select='${expr}'`, '-fps_mode', 'passthrough', '-f', 'framemd5', '-'], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      const frames = out.split('\n').filter((l) => /^\s*0,/.test(l));
      assert.equal(frames.length, count);
    });
  }
});
