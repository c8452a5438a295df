// Python's difflib.SequenceMatcher(None, a, b).ratio(), exactly (CPython 3.11 Lib/difflib.py, read there and
// checked against /usr/bin/python3 by test/core/protocols/avtime/difflib.test.ts). The LongVALE merge compares
// captions at ratio > 0.98, so an approximation would change which events merge.
//
// Elements are Unicode code points, as in a Python str (a JS string is UTF-16: an astral character is one
// element here, a lone surrogate is one element too, as Python keeps it).

/** `SequenceMatcher(None, a, b).ratio()`: 2·M / (|a| + |b|), 1 when both are empty. */
export function sequenceMatcherRatio(a: string, b: string): number {
  // Equal strings match whole (the longest block of equal sequences lies on the diagonal, and its extension
  // runs over popular elements to both ends), so 2n/2n = 1 exactly; the python comparison covers this case.
  if (a === b) return 1;
  const as = codePoints(a, 0);
  const bs = codePoints(b, 1);
  const length = as.length + bs.length;
  return (2 * matchingCharacters(as, bs)) / length;
}

/**
 * `sequenceMatcherRatio(a, b) > threshold`, the same answer, sooner: M ≤ min(|a|, |b|) and division is
 * monotone, so when 2·min/(|a|+|b|) ≤ threshold (difflib's real_quick_ratio) the ratio cannot exceed it.
 */
export function sequenceMatcherRatioExceeds(a: string, b: string, threshold: number): boolean {
  if (a === b) return 1 > threshold;
  const la = codePointCount(a);
  const lb = codePointCount(b);
  if ((2 * Math.min(la, lb)) / (la + lb) <= threshold) return false;
  return sequenceMatcherRatio(a, b) > threshold;
}

/** Code points of a JS string: UTF-16 units less one per well-formed surrogate pair. */
function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// Reused buffers (this module is synchronous: one ratio at a time), so a ratio allocates almost nothing.
const cpBuffers: Int32Array[] = [new Int32Array(256), new Int32Array(256)];

function codePoints(s: string, slot: 0 | 1): Int32Array {
  if (cpBuffers[slot].length < s.length) cpBuffers[slot] = new Int32Array(s.length * 2);
  const out = cpBuffers[slot];
  let n = 0;
  for (const ch of s) out[n++] = ch.codePointAt(0)!;
  return out.subarray(0, n);
}

/** Σ sizes of get_matching_blocks(): the longest match, then the same on each side, recursively. */
function matchingCharacters(a: Int32Array, b: Int32Array): number {
  const b2j = chainB(b);
  const m = matcher(a, b, b2j);
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

let shared: Matcher | undefined;
function matcher(a: Int32Array, b: Int32Array, b2j: Map<number, number[]>): Matcher {
  if (shared === undefined || shared.capacity < b.length + 1) shared = new Matcher(Math.max(256, 2 * (b.length + 1)));
  shared.a = a;
  shared.b = b;
  shared.b2j = b2j;
  return shared;
}

class Matcher {
  // j2len of the previous and the current row of a, indexed by j + 1, with a stamp telling which row wrote
  // each cell (so no row is ever cleared, and the buffers serve every later ratio). Stamps only grow (a double
  // counts exactly to 2^53); a gap between calls keeps the rows of two calls apart.
  private lenPrev: Int32Array;
  private lenCur: Int32Array;
  private stampPrev: Float64Array;
  private stampCur: Float64Array;
  private clock = 0;
  a: Int32Array = new Int32Array(0);
  b: Int32Array = new Int32Array(0);
  b2j = new Map<number, number[]>();

  constructor(readonly capacity: number) {
    this.lenPrev = new Int32Array(capacity);
    this.lenCur = new Int32Array(capacity);
    this.stampPrev = new Float64Array(capacity);
    this.stampCur = new Float64Array(capacity);
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
