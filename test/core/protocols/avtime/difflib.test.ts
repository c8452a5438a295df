import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { sequenceMatcherRatio, sequenceMatcherRatioExceeds } from '../../../../src/core/protocols/avtime/difflib';

// The reference is the machine's own CPython: one process gets every pair as JSON and answers every ratio.
const PYTHON = '/usr/bin/python3';
const PY_RATIOS = [
  'import sys, json, difflib',
  'pairs = json.load(sys.stdin)',
  'json.dump([difflib.SequenceMatcher(None, a, b).ratio() for a, b in pairs], sys.stdout)',
].join('\n');

function pythonRatios(pairs: [string, string][]): number[] {
  const r = spawnSync(PYTHON, ['-c', PY_RATIOS], { input: JSON.stringify(pairs), maxBuffer: 1 << 28, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as number[];
}

// Alphabets: a small one (many repeats: popular elements once |b| ≥ 200), captions' letters, and one
// with BMP, astral (two UTF-16 units, one code point) and lone surrogates.
const SMALL = ['a', 'b', 'c', ' '];
const WORDS = 'the a man woman dog speaks plays guitar music loud crowd cheers car engine rain falls laughs'.split(' ');
const MIXED = ['a', 'b', 'é', 'ß', '中', '😀', '🎵', '\ud800', '\udc00', ' ', 'x'];

const fromAlphabet = (alpha: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...alpha), { minLength: min, maxLength: max }).map((xs) => xs.join(''));
const caption = (minWords: number, maxWords: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: minWords, maxLength: maxWords }).map((ws) => ws.join(' '));

/** b = a with one edit (insert, delete or substitute at a code point). */
function oneEdit(base: fc.Arbitrary<string>, alpha: string[]): fc.Arbitrary<[string, string]> {
  return fc.tuple(base, fc.nat(), fc.constantFrom('ins', 'del', 'sub'), fc.constantFrom(...alpha)).map(([s, pos, op, ch]) => {
    const cps = Array.from(s);
    const p = cps.length === 0 ? 0 : pos % (cps.length + (op === 'ins' ? 1 : 0));
    if (op === 'ins') cps.splice(p, 0, ch);
    else if (cps.length > 0 && op === 'del') cps.splice(p, 1);
    else if (cps.length > 0) cps[p] = ch;
    return [s, cps.join('')];
  });
}

const repeated: fc.Arbitrary<[string, string]> = fc
  .tuple(fc.constantFrom('a', '😀', ' '), fc.integer({ min: 0, max: 260 }), fc.integer({ min: 0, max: 260 }), fc.nat(), fc.boolean())
  .map(([ch, n, m, pos, other]) => {
    const b = Array.from(ch.repeat(m));
    if (other && b.length > 0) b[pos % b.length] = 'z';
    return [ch.repeat(n), b.join('')];
  });

function sample<T>(arb: fc.Arbitrary<T>, n: number, seed: number): T[] {
  return fc.sample(arb, { numRuns: n, seed });
}

describe('avtime/difflib sequenceMatcherRatio', () => {
  it('a few known values', () => {
    assert.equal(sequenceMatcherRatio('', ''), 1);
    assert.equal(sequenceMatcherRatio('abc', ''), 0);
    assert.equal(sequenceMatcherRatio('abcd', 'bcde'), 0.75);
    // The difflib docs' example: " abcd" vs "abcd abcd" → 5 matching of 14.
    assert.equal(sequenceMatcherRatio(' abcd', 'abcd abcd'), 10 / 14);
    // An astral character is one element: '😀' vs '😀x' is 2·1/3, not 2·2/5 as UTF-16 units would give.
    assert.equal(sequenceMatcherRatio('😀', '😀x'), 2 / 3);
    // Autojunk: in 'a'×200, 'a' is popular (200 > ⌊200/100⌋ + 1) and leaves the index, yet the empty match at
    // (0, 0) still extends over it: 1. With 'a'×199 nothing is popular: also 1, by the index.
    assert.equal(sequenceMatcherRatio('a'.repeat(200), 'a'.repeat(200)), 1);
    // 'ba'×100 vs 'ab'×100: both letters are popular; the empty match at (0, 0) cannot extend ('b' ≠ 'a'),
    // so no block is found at all, where a plain longest-common-substring would find 199.
    assert.equal(sequenceMatcherRatio('ba'.repeat(100), 'ab'.repeat(100)), 0);
    assert.equal(sequenceMatcherRatio('ba'.repeat(99), 'ab'.repeat(99)), (2 * 197) / 396);
    const b = 'a'.repeat(100) + 'b' + 'a'.repeat(99);
    assert.equal(sequenceMatcherRatio('b', b), 2 / 201);
  });

  it('equals /usr/bin/python3 difflib on 12,300 pairs, short and long, exactly', function () {
    this.timeout(60_000);
    const groups: Record<string, [string, string][]> = {
      shortSmall: sample(fc.tuple(fromAlphabet(SMALL, 0, 30), fromAlphabet(SMALL, 0, 30)), 1500, 11),
      shortMixed: sample(fc.tuple(fromAlphabet(MIXED, 0, 40), fromAlphabet(MIXED, 0, 40)), 1500, 12),
      shortCaptions: sample(fc.tuple(caption(3, 14), caption(3, 14)), 1000, 13),
      shortNearDup: sample(oneEdit(caption(3, 14), ['a', 'e', ' ', 's']), 1500, 14),
      longSmall: sample(fc.tuple(fromAlphabet(SMALL, 150, 300), fromAlphabet(SMALL, 200, 300)), 1200, 21),
      longMixed: sample(fc.tuple(fromAlphabet(MIXED, 150, 300), fromAlphabet(MIXED, 190, 300)), 1200, 22),
      longCaptions: sample(fc.tuple(caption(30, 55), caption(35, 55)), 1000, 23),
      longNearDup: sample(oneEdit(caption(36, 55), ['a', 'e', ' ', 's', '😀']), 1600, 24),
      repeated: sample(repeated, 1500, 25),
      identical: sample(
        fc.oneof(fromAlphabet(SMALL, 0, 300), fromAlphabet(MIXED, 0, 250), caption(1, 50)).map((s): [string, string] => [s, s]),
        300,
        26,
      ),
    };
    const pairs = Object.values(groups).flat();
    const t0 = Date.now();
    const want = pythonRatios(pairs);
    const t1 = Date.now();
    assert.equal(want.length, pairs.length);
    let long = 0;
    const mismatches: string[] = [];
    pairs.forEach(([a, b], i) => {
      if (Array.from(b).length >= 200) long++;
      const got = sequenceMatcherRatio(a, b);
      if (!Object.is(got, want[i])) mismatches.push(`${JSON.stringify([a, b])}: ${got} vs python ${want[i]}`);
      // The merge's shortcut gives the same decision as the full ratio, at the merge threshold and elsewhere.
      for (const t of [0.98, 0.5]) {
        if (sequenceMatcherRatioExceeds(a, b, t) !== want[i] > t) mismatches.push(`${JSON.stringify([a, b])}: exceeds(${t}) disagrees`);
      }
    });
    const t2 = Date.now();
    assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} mismatches of ${pairs.length}`);
    assert.ok(pairs.length >= 10_000);
    // Enough pairs exercise autojunk (|b| ≥ 200 code points) and enough do not.
    assert.ok(long >= 4000 && pairs.length - long >= 4000, `long ${long} of ${pairs.length}`);
    if (process.env.AVTIME_DIFFLIB_STATS)
      console.log(
        `      pairs ${pairs.length}: |b|≥200 ${long}, shorter ${pairs.length - long}, ` +
          `mismatches ${mismatches.length}; python ${t1 - t0} ms, ours ${t2 - t1} ms`,
      );
  });
});
