// Python's difflib.SequenceMatcher(None, a, b).ratio(), exactly (CPython 3.11 Lib/difflib.py, read there and
// checked against /usr/bin/python3 by test/core/protocols/avtime/difflib.test.ts). The LongVALE merge compares
// captions at ratio > 0.98, so an approximation would change which events merge.
//
// Elements are Unicode code points, as in a Python str (a JS string is UTF-16: an astral character is one
// element here, a lone surrogate is one element too, as Python keeps it).

/** `SequenceMatcher(None, a, b).ratio()`: 2·M / (|a| + |b|), 1 when both are empty. */
export function sequenceMatcherRatio(a: string, b: string): number {
  const as = codePoints(a);
  const bs = codePoints(b);
  const length = as.length + bs.length;
  if (length === 0) return 1;
  return (2 * matchingCharacters(as, bs)) / length;
}

function codePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return out.subarray(0, n);
}

/** Σ sizes of get_matching_blocks(): the longest match, then the same on each side, recursively. */
function matchingCharacters(a: Int32Array, b: Int32Array): number {
  const b2j = chainB(b);
  const m = new Matcher(a, b, b2j);
  let total = 0;
  // The order in which the pieces are visited does not change the sum: each piece is independent.
  const stack: number[] = [0, a.length, 0, b.length];
  while (stack.length > 0) {
    const bhi = stack.pop()!;
    const blo = stack.pop()!;
    const ahi = stack.pop()!;
    const alo = stack.pop()!;
    const [i, j, k] = m.longest(alo, ahi, blo, bhi);
    if (k === 0) continue;
    total += k;
    if (alo < i && blo < j) stack.push(alo, i, blo, j);
    if (i + k < ahi && j + k < bhi) stack.push(i + k, ahi, j + k, bhi);
  }
  return total;
}

/**
 * b's element → its ascending positions, less the "popular" elements (autojunk): when |b| ≥ 200, an element
 * seen more than ⌊|b|/100⌋ + 1 times is dropped from the index. With isjunk None there is no other junk.
 */
function chainB(b: Int32Array): Map<number, number[]> {
  const b2j = new Map<number, number[]>();
  for (let j = 0; j < b.length; j++) {
    const list = b2j.get(b[j]);
    if (list) list.push(j);
    else b2j.set(b[j], [j]);
  }
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (const [elt, idxs] of b2j) if (idxs.length > ntest) b2j.delete(elt);
  }
  return b2j;
}

class Matcher {
  // j2len of the previous and the current row of a, indexed by j + 1, with a stamp telling which row wrote
  // each cell (so no row is ever cleared). Stamps only grow; a gap between calls keeps rows of calls apart.
  private lenPrev: Int32Array;
  private lenCur: Int32Array;
  private stampPrev: Float64Array;
  private stampCur: Float64Array;
  private clock = 0;

  constructor(
    private readonly a: Int32Array,
    private readonly b: Int32Array,
    private readonly b2j: Map<number, number[]>,
  ) {
    this.lenPrev = new Int32Array(b.length + 1);
    this.lenCur = new Int32Array(b.length + 1);
    this.stampPrev = new Float64Array(b.length + 1);
    this.stampCur = new Float64Array(b.length + 1);
  }

  /** find_longest_match(alo, ahi, blo, bhi): earliest in a, then earliest in b, among the longest. */
  longest(alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
    const { a, b, b2j } = this;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    this.clock += 1; // a stamp no row carries: the first row sees no previous row
    for (let i = alo; i < ahi; i++) {
      const stamp = ++this.clock;
      const js = b2j.get(a[i]);
      if (js !== undefined) {
        const lenPrev = this.lenPrev;
        const stampPrev = this.stampPrev;
        const lenCur = this.lenCur;
        const stampCur = this.stampCur;
        for (let x = 0; x < js.length; x++) {
          const j = js[x];
          if (j < blo) continue;
          if (j >= bhi) break;
          // j2len[j-1] of the previous row sits at index j.
          const k = (stampPrev[j] === stamp - 1 ? lenPrev[j] : 0) + 1;
          lenCur[j + 1] = k;
          stampCur[j + 1] = stamp;
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      [this.lenPrev, this.lenCur] = [this.lenCur, this.lenPrev];
      [this.stampPrev, this.stampCur] = [this.stampCur, this.stampPrev];
    }
    // Extend by non-junk elements on both ends. isjunk is None, so nothing is junk: popular elements (absent
    // from b2j) are extended over here, and difflib's second pair of loops (extending over junk) never runs.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }
}
