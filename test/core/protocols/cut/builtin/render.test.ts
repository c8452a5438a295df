// The clip's ffmpeg arguments: an accurate cut (input seek, then a length per output), one thread, the sidecar.
import * as assert from 'node:assert/strict';
import { clipArgs } from '../../../../../src/core/protocols/cut/builtin/render';

describe('builtin cutter: clip arguments', () => {
  const args = clipArgs('/v/in.mp4', { startSec: 12.3456, endSec: 20.1, mp4: '/o/clip_0002.mp4', mp3: '/o/clip_0002.mp3' });

  it('seeks the input before -i and bounds each output by the segment length after it', () => {
    const i = args.indexOf('-i');
    assert.deepEqual(args.slice(i - 2, i + 2), ['-ss', '12.346', '-i', '/v/in.mp4']);
    const lengths = args.flatMap((a, k) => (a === '-t' ? [[k, args[k + 1]] as const] : []));
    assert.equal(lengths.length, 2);
    for (const [k, v] of lengths) {
      assert.ok(k > i);
      assert.equal(v, '7.754');
    }
  });

  it('writes an H.264 + AAC clip and an mp3 sidecar, every coder on one thread', () => {
    assert.ok(args.indexOf('/o/clip_0002.mp4') < args.indexOf('/o/clip_0002.mp3'));
    assert.deepEqual(
      args.flatMap((a, k) => (a === '-c:v' || a === '-c:a' ? [args[k + 1]] : [])),
      ['libx264', 'aac', 'libmp3lame'],
    );
    assert.ok(args.filter((a, k) => a === '-threads' && args[k + 1] === '1').length >= 2);
  });

  it('writes no sidecar when told not to', () => {
    const none = clipArgs('/v/in.mp4', { startSec: 0, endSec: 6, mp4: '/o/clip_0001.mp4', mp3: null });
    assert.ok(!none.includes('libmp3lame'));
    assert.equal(none[none.length - 1], '/o/clip_0001.mp4');
  });
});
