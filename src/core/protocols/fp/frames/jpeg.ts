// One raw decoded frame → one JPEG at the protocol's dims (SPEC §2.3): sharp, Lanczos-3, quality 85 on
// the standard IJG scale (mozjpeg's trellis/tables off), 4:2:0, baseline. Frames at their stored size
// are re-encoded from the decoded pixels, never resized.
import sharp from 'sharp';
import { JPEG_CHROMA_SUBSAMPLING, JPEG_QUALITY } from '../rules';

// The operation cache would keep raw inputs alive; every frame is seen once.
sharp.cache(false);

export interface Dims {
  width: number;
  height: number;
}

export const JPEG_OPTIONS = {
  quality: JPEG_QUALITY,
  chromaSubsampling: JPEG_CHROMA_SUBSAMPLING,
  progressive: false,
  mozjpeg: false,
  // libjpeg's standard Huffman tables: still baseline (SOF0) at the same q85 quantisation; the
  // optimised-table pass would cost ~2× the encode time of a 720p frame for a few % of bytes.
  optimiseCoding: false,
} as const;

/** The sharp pipeline for one frame: `rgb` is packed RGB at `from` dims. */
export function jpegPipeline(rgb: Buffer, from: Dims, to: Dims): sharp.Sharp {
  let img = sharp(rgb, { raw: { width: from.width, height: from.height, channels: 3 } });
  if (to.width !== from.width || to.height !== from.height) {
    if (to.width > from.width || to.height > from.height) {
      throw new RangeError(`frames are never upscaled: ${from.width}x${from.height} → ${to.width}x${to.height}`);
    }
    img = img.resize(to.width, to.height, { kernel: 'lanczos3', fit: 'fill' });
  }
  return img.jpeg(JPEG_OPTIONS);
}

export async function encodeJpegFile(rgb: Buffer, from: Dims, to: Dims, file: string): Promise<number> {
  const info = await jpegPipeline(rgb, from, to).toFile(file);
  if (info.width !== to.width || info.height !== to.height) {
    throw new Error(`sharp wrote ${info.width}x${info.height}, asked ${to.width}x${to.height} (${file})`);
  }
  return info.size;
}

/** The JPEG's bytes (the store writes them itself, through its folder handle: frames/store.ts). */
export async function encodeJpeg(rgb: Buffer, from: Dims, to: Dims): Promise<Buffer> {
  const { data, info } = await jpegPipeline(rgb, from, to).toBuffer({ resolveWithObject: true });
  if (info.width !== to.width || info.height !== to.height) throw new Error(`sharp made ${info.width}x${info.height}, asked ${to.width}x${to.height}`);
  return data;
}
