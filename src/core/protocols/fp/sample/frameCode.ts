// Every sample frame shows its own frame index (and its video's tag) as vertical black/white bands,
// so a test can tell which stored frame arrived after decode, resize to 168 px and JPEG q85.
//
// Layout: the bottom half of the frame carries the frame index, the top half the video tag. Each half
// is BANDS equal-width vertical bands: [white start] [11 data bits, most significant first]
// [even parity over the data bits] [black stop]. The start/stop bands and the parity make a misread
// (wrong crop, a mirrored frame, a frame that is not a sample frame) throw instead of returning a number.
import sharp from 'sharp';

export const DATA_BITS = 11;
export const BANDS = DATA_BITS + 3; // start + data + parity + stop
/** The largest frame index or video tag a frame can carry. */
export const MAX_CODE = (1 << DATA_BITS) - 1;

const WHITE = 255;
const BLACK = 0;
/** A band mean must be this far from mid-grey to count as a clear 0 or 1. */
const MARGIN = 48;

export interface FrameCode {
  frameIndex: number;
  videoTag: number;
}

export class FrameCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameCodeError';
  }
}

/** The band levels (1 = white) for one value: start, data bits, parity, stop. */
export function bandBits(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > MAX_CODE) {
    throw new RangeError(`frame code ${value} is outside 0..${MAX_CODE}`);
  }
  const data: number[] = [];
  for (let b = DATA_BITS - 1; b >= 0; b--) data.push((value >> b) & 1);
  const parity = data.reduce((a, x) => a ^ x, 0);
  return [1, ...data, parity, 0];
}

function bandOfColumn(x: number, width: number): number {
  return Math.floor((x * BANDS) / width);
}

/** One greyscale row (width bytes) showing `value` as bands. */
function bandRow(value: number, width: number): Buffer {
  const bits = bandBits(value);
  const row = Buffer.alloc(width);
  for (let x = 0; x < width; x++) row[x] = bits[bandOfColumn(x, width)] ? WHITE : BLACK;
  return row;
}

/**
 * The two distinct rows of a frame, top (video tag) then bottom (frame index): the whole frame is
 * the first row repeated over the top half and the second over the bottom half. The encoder sends
 * these two rows and lets ffmpeg repeat them (nearest-neighbour scaling), which equals drawFrame's
 * output pixel for pixel and saves piping ~1 MB per frame.
 */
export function codeRows(width: number, code: FrameCode): Buffer {
  if (width < BANDS * 2) throw new RangeError(`a frame ${width} px wide is too narrow for the frame code`);
  return Buffer.concat([bandRow(code.videoTag, width), bandRow(code.frameIndex, width)]);
}

/**
 * Draws one greyscale (8-bit, one byte per pixel) frame: top half = video tag, bottom half = frame
 * index. `out` is reused when given (it must be width·height bytes).
 */
export function drawFrame(width: number, height: number, code: FrameCode, out?: Buffer): Buffer {
  if (width < BANDS * 2 || height < 4) throw new RangeError(`a ${width}x${height} frame is too small for the frame code`);
  const buf = out ?? Buffer.allocUnsafe(width * height);
  if (buf.length !== width * height) throw new RangeError('output buffer has the wrong size');
  const split = Math.floor(height / 2) * width;
  buf.fill(bandRow(code.videoTag, width), 0, split);
  buf.fill(bandRow(code.frameIndex, width), split);
  return buf;
}

/** Reads the value of the bands in rows [y0, y1) of a greyscale image; throws on any doubt. */
function readHalf(grey: Uint8Array, width: number, y0: number, y1: number, what: string): number {
  const bits: number[] = [];
  const means: number[] = [];
  for (let b = 0; b < BANDS; b++) {
    // Sample the middle half of each band: its edges are blurred by resizing and JPEG.
    const x0 = Math.floor(((b + 0.25) * width) / BANDS);
    const x1 = Math.max(x0 + 1, Math.ceil(((b + 0.75) * width) / BANDS));
    let sum = 0;
    let count = 0;
    for (let y = y0; y < y1; y++) {
      const rowStart = y * width;
      for (let x = x0; x < x1; x++) sum += grey[rowStart + x];
      count += x1 - x0;
    }
    const mean = sum / count;
    means.push(Math.round(mean));
    if (Math.abs(mean - 128) < MARGIN) {
      throw new FrameCodeError(`${what}: band ${b} is neither black nor white (mean ${mean.toFixed(1)}); band means ${means.join(',')}`);
    }
    bits.push(mean > 128 ? 1 : 0);
  }
  if (bits[0] !== 1 || bits[BANDS - 1] !== 0) {
    throw new FrameCodeError(`${what}: start/stop bands are not white/black (bits ${bits.join('')})`);
  }
  const data = bits.slice(1, 1 + DATA_BITS);
  const parity = data.reduce((a, x) => a ^ x, 0);
  if (parity !== bits[1 + DATA_BITS]) throw new FrameCodeError(`${what}: parity check failed (bits ${bits.join('')})`);
  return data.reduce((v, bit) => (v << 1) | bit, 0);
}

/** Reads the code from a greyscale image (one byte per pixel, row-major). */
export function readFrameCodeFromGrey(grey: Uint8Array, width: number, height: number): FrameCode {
  if (grey.length < width * height) throw new FrameCodeError(`expected ${width * height} grey bytes, got ${grey.length}`);
  if (width < BANDS * 2 || height < 8) throw new FrameCodeError(`a ${width}x${height} image is too small to carry a frame code`);
  // Rows away from the top/bottom edges and the middle boundary (blurred by resizing).
  const h = height;
  const videoTag = readHalf(grey, width, Math.floor(h * 0.1), Math.ceil(h * 0.4), 'video tag');
  const frameIndex = readHalf(grey, width, Math.floor(h * 0.6), Math.ceil(h * 0.9), 'frame index');
  return { frameIndex, videoTag };
}

/** Raw pixels (e.g. `ffmpeg -f rawvideo -pix_fmt rgb24`), or an encoded image (JPEG, PNG…) as bytes. */
export type FrameInput = Uint8Array | { data: Uint8Array; width: number; height: number; channels: 1 | 2 | 3 | 4 };

/** Decodes the frame index and video tag of a sample frame; throws FrameCodeError when unreadable. */
export async function decodeFrameCode(input: FrameInput): Promise<FrameCode> {
  const image = input instanceof Uint8Array ? sharp(input) : sharp(input.data, { raw: { width: input.width, height: input.height, channels: input.channels } });
  const { data, info } = await image.greyscale().raw().toBuffer({ resolveWithObject: true });
  // greyscale() may keep an alpha channel; take the first channel of each pixel.
  const grey = info.channels === 1 ? data : pickFirstChannel(data, info.channels);
  return readFrameCodeFromGrey(grey, info.width, info.height);
}

/** The stored frame index a sample frame shows; throws FrameCodeError when unreadable. */
export async function decodeFrameIndex(input: FrameInput): Promise<number> {
  return (await decodeFrameCode(input)).frameIndex;
}

function pickFirstChannel(data: Buffer, channels: number): Buffer {
  const out = Buffer.allocUnsafe(data.length / channels);
  for (let i = 0, j = 0; j < out.length; i += channels, j++) out[j] = data[i];
  return out;
}
