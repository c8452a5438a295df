// What a frame costs in transit, beyond the cost model of src/standins/vllm/cost/ (which starts at the decoded
// image). ESTIMATES, not measured: they matter only for data: URLs (the seed's way), where the JPEG travels
// base64 inside the JSON body.
//   JPEG size: ~0.15 byte a pixel at q85 for natural frames (398×224 ≈ 13 KB).
//   The API thread parses the body (json + pydantic over the base64 strings): ~10 ms per MB of body.
//   A media thread base64-decodes each data: URL before PIL decodes it: ~1 ms per MB.
//   file:// parts cost the API thread nothing extra; a media thread reads the file (page cache): ~0.2 ms per MB.
export const JPEG_BYTES_PER_PIXEL = 0.15;
export const BODY_PARSE_S_PER_MB = 0.01;
export const BASE64_DECODE_S_PER_MB = 0.001;
export const FILE_READ_S_PER_MB = 0.0002;

export type Transport = 'data' | 'file';

export function jpegBytes(width: number, height: number): number {
  return width * height * JPEG_BYTES_PER_PIXEL;
}

/** Seconds a media thread spends getting one JPEG's bytes (before the decode the cost model charges). */
export function fetchSeconds(transport: Transport, width: number, height: number): number {
  const mb = jpegBytes(width, height) / 1e6;
  return transport === 'data' ? ((mb * 4) / 3) * BASE64_DECODE_S_PER_MB : mb * FILE_READ_S_PER_MB;
}

/** Seconds the API thread spends parsing the request body's image parts. */
export function bodyParseSeconds(transport: Transport, images: number, width: number, height: number): number {
  if (transport === 'file') return 0;
  return ((images * jpegBytes(width, height) * 4) / 3 / 1e6) * BODY_PARSE_S_PER_MB;
}
