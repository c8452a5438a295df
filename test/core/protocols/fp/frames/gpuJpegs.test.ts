// The GPU frame path's JPEGs, as written on the device (test/fixtures/gpuFrames/README.md), against every rule SPEC
// §2.3 puts in the file: baseline (SOF0), 4:2:0, IJG quality-85 tables, 8-bit, and the size planFrames plans for the
// video class (the rounding rule). The nvJPEG file (4:4:4) must fail, or the check proves nothing.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkSpecJpeg } from '../../../../../src/core/protocols/fp/frames/jpegSpec';
import { DEFAULT_CONDITIONS, parseCondition, planFrames } from '../../../../../src/core/protocols/fp/rules';

const DIR = path.join(__dirname, '..', '..', '..', '..', 'fixtures', 'gpuFrames');
const CLASSES: Record<string, { width: number; height: number }> = { v720: { width: 1280, height: 720 }, v480: { width: 854, height: 480 } };

/** Every size the default conditions send for a stored video of these dims (1024 frames, 30 fps). */
function plannedSizes(width: number, height: number): Set<string> {
  const meta = { width, height, timestamps: Array.from({ length: 1024 }, (_, k) => k / 30), too_short: false };
  const sizes = new Set<string>();
  for (const c of DEFAULT_CONDITIONS) {
    const p = planFrames(parseCondition(c), meta);
    if (p.status === 'send' && p.width !== null) sizes.add(`${p.width}x${p.height}`);
  }
  return sizes;
}

describe('GPU frame path JPEGs (device fixtures) keep every SPEC rule', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.jpg'));

  it('has the fixtures', () => assert.ok(files.filter((f) => !f.startsWith('nvjpeg')).length >= 4));

  for (const f of files.filter((x) => !x.startsWith('nvjpeg'))) {
    it(`${f}: baseline, 4:2:0, IJG q85, a planned size`, () => {
      const [cls, , dims] = f.replace('.jpg', '').split('_');
      const [w, h] = dims.split('x').map(Number);
      assert.ok(plannedSizes(CLASSES[cls].width, CLASSES[cls].height).has(dims), `${dims} is not a size the conditions plan for ${cls}`);
      assert.deepEqual(checkSpecJpeg(readFileSync(path.join(DIR, f)), { width: w, height: h }), []);
    });
  }

  it("torchvision's nvJPEG file (4:4:4) fails the check, on the sampling alone", () => {
    const problems = checkSpecJpeg(readFileSync(path.join(DIR, 'nvjpeg444_v720_511_398x224.jpg')), { width: 398, height: 224 });
    assert.equal(problems.length, 1);
    assert.match(problems[0], /not 4:2:0/);
  });

  it('a wrong planned size, another quality or a progressive file fails too', () => {
    const ok = readFileSync(path.join(DIR, 'v720_511_398x224.jpg'));
    assert.match(checkSpecJpeg(ok, { width: 399, height: 224 }).join(), /size 398x224, planned 399x224/);
    assert.match(checkSpecJpeg(ok, { width: 398, height: 224 }, 90).join(), /not IJG's at quality 90/);
    const progressive = Buffer.from(ok);
    progressive[progressive.indexOf(Buffer.from([0xff, 0xc0]), 2) + 1] = 0xc2;
    assert.match(checkSpecJpeg(progressive, { width: 398, height: 224 }).join(), /not baseline/);
  });
});
