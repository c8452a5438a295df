// A JPEG's markers read from the file itself (issue 34): frame type (baseline SOF0 vs progressive SOF2), the frame
// header's size and components' sampling factors, and the quantisation tables, so that every SPEC §2.3 rule a JPEG
// carries — quality 85 on the IJG scale, 4:2:0, baseline, the planned size — is checked on the bytes, whichever
// encoder made them (sharp on the CPU path, nvJPEG on the GPU path).
import { JPEG_QUALITY } from '../rules';

/** ITU-T T.81 Annex K luminance table, natural (row-major) order. */
const ANNEX_K_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103,
  77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const ANNEX_K_CHROMA = [
  17,
  18,
  24,
  47,
  99,
  99,
  99,
  99,
  18,
  21,
  26,
  66,
  99,
  99,
  99,
  99,
  24,
  26,
  56,
  99,
  99,
  99,
  99,
  99,
  47,
  66,
  99,
  99,
  99,
  99,
  99,
  99,
  ...Array(32).fill(99),
];
/** Zigzag position k → natural index. DQT stores tables in zigzag order. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22,
  15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/** libjpeg's jpeg_quality_scaling + jpeg_add_quant_table (force_baseline): the IJG quality scale. */
export function ijgTable(base: readonly number[], quality: number): number[] {
  const scale = quality < 50 ? Math.floor(5000 / quality) : 200 - quality * 2;
  return base.map((b) => Math.min(255, Math.max(1, Math.floor((b * scale + 50) / 100))));
}

export const IJG_LUMA = (q: number) => ijgTable(ANNEX_K_LUMA, q);
export const IJG_CHROMA = (q: number) => ijgTable(ANNEX_K_CHROMA, q);

export interface JpegComponent {
  id: number;
  /** Sampling factors (horizontal, vertical) and the quantisation table it uses. */
  h: number;
  v: number;
  table: number;
}

export interface JpegMarkers {
  /** SOF marker codes seen (0xC0 baseline, 0xC1 extended, 0xC2 progressive). */
  sof: number[];
  /** Quantization tables by id, natural order. */
  tables: Map<number, number[]>;
  /** The first frame header's size and components (null without one). */
  frame: { width: number; height: number; precision: number; components: JpegComponent[] } | null;
}

export function readJpegMarkers(buf: Buffer): JpegMarkers {
  if (buf[0] !== 0xff || buf[1] !== 0xd8) throw new Error('not a JPEG (no SOI)');
  const sof: number[] = [];
  const tables = new Map<number, number[]>();
  let frame: JpegMarkers['frame'] = null;
  let p = 2;
  while (p + 4 <= buf.length) {
    if (buf[p] !== 0xff) throw new Error(`bad marker at ${p}`);
    const code = buf[p + 1];
    if (code === 0xd9 || code === 0xda) break; // EOI / SOS: entropy-coded data follows
    const len = buf.readUInt16BE(p + 2);
    const seg = buf.subarray(p + 4, p + 2 + len);
    if (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) {
      sof.push(code);
      if (!frame && seg.length >= 6) {
        const components: JpegComponent[] = [];
        for (let c = 0; c < seg[5]; c++) {
          const o = 6 + 3 * c;
          components.push({ id: seg[o], h: seg[o + 1] >> 4, v: seg[o + 1] & 15, table: seg[o + 2] });
        }
        frame = { precision: seg[0], height: seg.readUInt16BE(1), width: seg.readUInt16BE(3), components };
      }
    }
    if (code === 0xdb) {
      let q = 0;
      while (q < seg.length) {
        const precision = seg[q] >> 4;
        const id = seg[q] & 15;
        const natural = new Array<number>(64);
        for (let k = 0; k < 64; k++) natural[ZIGZAG[k]] = precision ? seg.readUInt16BE(q + 1 + 2 * k) : seg[q + 1 + k];
        tables.set(id, natural);
        q += 1 + 64 * (precision ? 2 : 1);
      }
    }
    p += 2 + len;
  }
  return { sof, tables, frame };
}

/** What breaks SPEC §2.3 in this JPEG (empty: nothing): baseline, 4:2:0, IJG q85 tables, the expected size. */
export function checkSpecJpeg(buf: Buffer, expected: { width: number; height: number }, quality = JPEG_QUALITY): string[] {
  let m: JpegMarkers;
  try {
    m = readJpegMarkers(buf);
  } catch (err) {
    return [(err as Error).message];
  }
  const problems: string[] = [];
  if (m.sof.length !== 1 || m.sof[0] !== 0xc0) problems.push(`not baseline: SOF ${m.sof.map((c) => c.toString(16)).join(',') || 'none'}`);
  const f = m.frame;
  if (!f) return [...problems, 'no frame header'];
  if (f.width !== expected.width || f.height !== expected.height) problems.push(`size ${f.width}x${f.height}, planned ${expected.width}x${expected.height}`);
  if (f.precision !== 8) problems.push(`${f.precision}-bit samples`);
  const [y, cb, cr] = f.components;
  if (f.components.length !== 3 || y.h !== 2 || y.v !== 2 || cb.h !== 1 || cb.v !== 1 || cr.h !== 1 || cr.v !== 1) {
    problems.push(`sampling ${f.components.map((c) => `${c.h}x${c.v}`).join(',')}, not 4:2:0 (2x2,1x1,1x1)`);
  }
  const same = (a: readonly number[] | undefined, b: readonly number[]) => !!a && a.length === b.length && a.every((x, i) => x === b[i]);
  if (y && !same(m.tables.get(y.table), IJG_LUMA(quality))) problems.push(`luma table is not IJG's at quality ${quality}`);
  if (cb && !same(m.tables.get(cb.table), IJG_CHROMA(quality))) problems.push(`Cb table is not IJG's at quality ${quality}`);
  if (cr && !same(m.tables.get(cr.table), IJG_CHROMA(quality))) problems.push(`Cr table is not IJG's at quality ${quality}`);
  return problems;
}
