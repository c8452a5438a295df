// NVDEC in the GPU helper's own process (resources/python/fp_nvdec.py, issue 45), against a stand-in driver: no GPU
// here, so fixtures/nvdec_bookkeeping.py hands NvdecJob a fake libcuda/libnvcuvid whose parser shows one frame a byte
// of the demuxed stream. What is tested is ours: which displayed frames are copied and in what order, batches, every
// mapped surface unmapped only after its copy was waited for, the decoder and parser destroyed, and each reason a
// video must go back to ffmpeg (the frames ffmpeg would decode, or none). The device check of the pixels themselves
// is bench/gpuSweep/nvdec_check.py (frame for frame against ffmpeg's NVDEC).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultGpuHelperPath } from '../../../../../src/core/protocols/fp/frames/gpu/probe';

interface CaseLine {
  case: string;
  delivered?: number;
  unfit?: string;
  batches: number[][];
  mapped_left: number;
  decoders_left: number;
  events: unknown[][];
}

describe('fp/frames/gpu: the helper’s own NVDEC decode (fp_nvdec.py) against a stand-in driver', function () {
  this.timeout(30_000);
  let cases: Map<string, CaseLine>;
  let dir: string;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fp-nvdec-'));
    // The demuxer stand-in: as many bytes as its -i names (one frame each), or a failure for "fail".
    const ffmpeg = path.join(dir, 'ffmpeg');
    writeFileSync(
      ffmpeg,
      [
        '#!/bin/sh',
        'while [ $# -gt 0 ]; do if [ "$1" = -i ]; then n=$2; fi; shift; done',
        'case $n in fail*) echo "moov atom not found" >&2; exit 1;; esac',
        'head -c "$n" /dev/zero | tr \'\\0\' F',
        '',
      ].join('\n'),
    );
    chmodSync(ffmpeg, 0o755);
    const script = path.join(__dirname, 'fixtures', 'nvdec_bookkeeping.py');
    const out = execFileSync('python3', [script, path.dirname(defaultGpuHelperPath()), ffmpeg], { encoding: 'utf8', timeout: 25_000 });
    cases = new Map(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as CaseLine)
        .map((c) => [c.case, c]),
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  function get(name: string): CaseLine {
    const c = cases.get(name);
    assert.ok(c, `case ${name} ran`);
    // Whatever happened: no surface left mapped, no decoder left.
    assert.equal(c.mapped_left, 0, `${name}: surfaces left mapped`);
    assert.equal(c.decoders_left, 0, `${name}: decoders left`);
    return c;
  }

  it('copies exactly the frames asked, in display order, in batches of the batch size', () => {
    const whole = get('whole');
    assert.equal(whole.unfit, undefined);
    assert.equal(whole.delivered, 6);
    assert.deepEqual(whole.batches, [
      [0, 2, 3, 4],
      [5, 9],
    ]);
    assert.deepEqual(whole.events[0], ['create', 8, 4, 8, 4], 'decoder at the stored size, min surfaces + delay + 2, 4 mapped at once');
    assert.deepEqual(get('every frame, batch of 4').batches, [[0, 1, 2, 3], [4, 5, 6, 7], [8]]);
  });

  it('a stream that shows more frames than the video stores is not its frames (an edit list ffmpeg applies): unfit', () => {
    assert.match(get('one frame more than stored').unfit ?? '', /displayed 11 frames, the video has 10 stored/);
    assert.match(get('a frame asked past the end').unfit ?? '', /1 of 2 frames asked were displayed/);
  });

  it('interlaced, another size, 10-bit, a damaged frame or a failing demuxer: unfit, with the reason', () => {
    assert.equal(get('interlaced').unfit, 'an interlaced sequence');
    assert.match(get('another size').unfit ?? '', /shows 6x4, the stored size is 8x4/);
    assert.match(get('10-bit').unfit ?? '', /not 8-bit 4:2:0 H\.264/);
    assert.match(get('damaged frame').unfit ?? '', /frame 0 decoded with an error/);
    assert.match(get('demuxer fails').unfit ?? '', /demuxer .* exit 1: moov atom not found/);
  });
});
