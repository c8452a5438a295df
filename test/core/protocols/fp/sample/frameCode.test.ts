import * as assert from 'node:assert/strict';
import sharp from 'sharp';
import fc from 'fast-check';
import {
  bandBits,
  BANDS,
  codeRows,
  decodeFrameCode,
  decodeFrameIndex,
  drawFrame,
  FrameCodeError,
  MAX_CODE,
  readFrameCodeFromGrey,
} from '../../../../../src/core/protocols/fp/sample/frameCode';
import { resizeDims } from '../../../../../src/core/protocols/fp/rules';

/** Resize to a short side as the frame pipeline does (Lanczos) and encode JPEG q85 4:2:0. */
async function toJpeg(grey: Buffer, width: number, height: number, shortSide: number | null): Promise<Buffer> {
  let img = sharp(grey, { raw: { width, height, channels: 1 } }).toColourspace('srgb');
  if (shortSide !== null) {
    const d = resizeDims(width, height, shortSide);
    img = img.resize(d.width, d.height, { kernel: 'lanczos3', fit: 'fill' });
  }
  return img.jpeg({ quality: 85, chromaSubsampling: '4:2:0' }).toBuffer();
}

describe('sample frame code', () => {
  it('spends one start, 11 data, one parity and one stop band', () => {
    assert.equal(BANDS, 14);
    assert.deepEqual(bandBits(0), [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(bandBits(5), [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0]);
    assert.deepEqual(bandBits(1024), [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    assert.throws(() => bandBits(MAX_CODE + 1), RangeError);
    assert.throws(() => bandBits(-1), RangeError);
  });

  it('codeRows are the two distinct rows of drawFrame (what the encoder sends)', () => {
    const w = 854;
    const h = 480;
    const code = { frameIndex: 777, videoTag: 12 };
    const frame = drawFrame(w, h, code);
    const rows = codeRows(w, code);
    assert.deepEqual(frame.subarray(0, w), rows.subarray(0, w));
    assert.deepEqual(frame.subarray((h / 2 - 1) * w, (h / 2) * w), rows.subarray(0, w));
    assert.deepEqual(frame.subarray((h / 2) * w, (h / 2 + 1) * w), rows.subarray(w));
    assert.deepEqual(frame.subarray((h - 1) * w), rows.subarray(w));
  });

  it('reads back index and tag from raw grey frames of every stored shape', () => {
    for (const [w, h] of [
      [1280, 720],
      [960, 720],
      [720, 1280],
      [854, 480],
      [640, 480],
      [480, 854],
    ]) {
      for (const code of [
        { frameIndex: 0, videoTag: 0 },
        { frameIndex: 1023, videoTag: 5 },
        { frameIndex: MAX_CODE, videoTag: MAX_CODE },
      ]) {
        assert.deepEqual(readFrameCodeFromGrey(drawFrame(w, h, code), w, h), code, `${w}x${h}`);
      }
    }
  });

  it('survives resize to 168/224 short side and JPEG q85 (any index, any shape)', async function () {
    this.timeout(60_000);
    const shapes = [
      [1280, 720],
      [960, 720],
      [720, 1280],
      [854, 480],
      [640, 480],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: MAX_CODE }),
        fc.integer({ min: 0, max: MAX_CODE }),
        fc.constantFrom(...shapes),
        fc.constantFrom(168, 224, null),
        async (frameIndex, videoTag, [w, h], side) => {
          const jpeg = await toJpeg(drawFrame(w, h, { frameIndex, videoTag }), w, h, side);
          assert.deepEqual(await decodeFrameCode(jpeg), { frameIndex, videoTag });
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });

  it('takes raw RGB pixels as well as encoded images', async () => {
    const w = 299;
    const h = 168;
    const rgb = await sharp(drawFrame(w, h, { frameIndex: 321, videoTag: 3 }), { raw: { width: w, height: h, channels: 1 } })
      .toColourspace('srgb')
      .raw()
      .toBuffer();
    assert.equal(rgb.length, w * h * 3);
    assert.equal(await decodeFrameIndex({ data: rgb, width: w, height: h, channels: 3 }), 321);
  });

  it('throws instead of misreading: mirrored, grey, cropped or flipped-parity frames', async () => {
    const w = 1280;
    const h = 720;
    const frame = drawFrame(w, h, { frameIndex: 100, videoTag: 1 });
    const raw = { raw: { width: w, height: h, channels: 1 as const } };
    const mirrored = await sharp(frame, raw).flop().png().toBuffer();
    await assert.rejects(decodeFrameIndex(mirrored), FrameCodeError);
    const grey = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080' } })
      .jpeg()
      .toBuffer();
    await assert.rejects(decodeFrameIndex(grey), FrameCodeError);
    const cropped = await sharp(frame, raw).extract({ left: 200, top: 0, width: 1080, height: 720 }).png().toBuffer();
    await assert.rejects(decodeFrameIndex(cropped), FrameCodeError);
    // One data band inverted: the parity catches it.
    const broken = Buffer.from(frame);
    const bandW = w / BANDS;
    for (let y = h / 2; y < h; y++) {
      for (let x = Math.ceil(5 * bandW); x < Math.floor(6 * bandW); x++) broken[y * w + x] = 255 - broken[y * w + x];
    }
    assert.throws(() => readFrameCodeFromGrey(broken, w, h), /parity/);
  });
});
