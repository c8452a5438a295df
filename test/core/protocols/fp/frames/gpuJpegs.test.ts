// The GPU frame path's JPEGs, as written on the device (test/fixtures/gpuFrames/README.md), against every rule SPEC
// §2.3 puts in the file: baseline (SOF0), 4:2:0, IJG quality-85 tables, 8-bit, and the size planFrames plans for the
// video class (the rounding rule). The nvJPEG file (4:4:4) must fail, or the check proves nothing.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkSpecJpeg } from '../../../../../src/core/protocols/fp/frames/jpegSpec';
import { defaultGpuHelperPath } from '../../../../../src/core/protocols/fp/frames/gpu/probe';
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

  it("the helper's own check (jpeg_spec_problems, which lets nvJPEG's 4:2:0 files be used) says what checkSpecJpeg says", () => {
    // Issue 45: the helper uses nvJPEG only where its warm-up file passes its Python check; that check must refuse
    // whatever the node side's refuses, on the fixtures and on each rule broken on purpose.
    const ok = readFileSync(path.join(DIR, 'v720_511_398x224.jpg'));
    const progressive = Buffer.from(ok);
    progressive[progressive.indexOf(Buffer.from([0xff, 0xc0]), 2) + 1] = 0xc2;
    const otherTable = Buffer.from(ok);
    otherTable[otherTable.indexOf(Buffer.from([0xff, 0xdb]), 2) + 6] += 1;
    const cases: Array<{ bytes: Buffer; width: number; height: number; quality: number }> = [
      ...files.map((f) => {
        const [w, h] = f.replace('.jpg', '').split('_').pop()!.split('x').map(Number);
        return { bytes: readFileSync(path.join(DIR, f)), width: w, height: h, quality: 85 };
      }),
      { bytes: ok, width: 399, height: 224, quality: 85 },
      { bytes: ok, width: 398, height: 224, quality: 90 },
      { bytes: progressive, width: 398, height: 224, quality: 85 },
      { bytes: otherTable, width: 398, height: 224, quality: 85 },
      { bytes: Buffer.from('not a jpeg'), width: 1, height: 1, quality: 85 },
    ];
    const script = [
      'import base64, json, sys',
      `sys.path.insert(0, ${JSON.stringify(path.dirname(defaultGpuHelperPath()))})`,
      'import fp_gpu_frames as h',
      'cases = json.load(sys.stdin)',
      'print(json.dumps([h.jpeg_spec_problems(base64.b64decode(c["b"]), c["w"], c["h"], c["q"]) for c in cases]))',
    ].join('\n');
    const input = JSON.stringify(cases.map((c) => ({ b: c.bytes.toString('base64'), w: c.width, h: c.height, q: c.quality })));
    const python = JSON.parse(execFileSync('python3', ['-c', script], { input, encoding: 'utf8' })) as string[][];
    const node = cases.map((c) => checkSpecJpeg(c.bytes, { width: c.width, height: c.height }, c.quality));
    assert.deepEqual(python, node);
    assert.deepEqual(
      node.map((p) => p.length > 0),
      [...files.map((f) => f.startsWith('nvjpeg')), true, true, true, true, true],
    );
  });
});
