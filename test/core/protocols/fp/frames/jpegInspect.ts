// Reads a JPEG's markers (the reader moved into product code for issue 34: frames/jpegSpec.ts checks the GPU path's files).
export { IJG_CHROMA, IJG_LUMA, ijgTable, readJpegMarkers, type JpegMarkers } from '../../../../../src/core/protocols/fp/frames/jpegSpec';
