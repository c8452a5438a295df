import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { selectExpression } from '../../../../../src/core/protocols/fp/frames';

/** Evaluates the expression the way ffmpeg's select filter would, for frame number n. */
function keeps(expr: string, n: number): boolean {
  const terms = [...expr.matchAll(/eq\(n,(\d+)\)|between\(n,(\d+),(\d+)\)/g)];
  const rest = expr.replace(/eq\(n,\d+\)|between\(n,\d+,\d+\)/g, '').replace(/[()+]/g, '');
  if (rest !== '') throw new Error(`unexpected text '${rest}' in ${expr}`);
  return terms.some((m) => (m[1] !== undefined ? n === Number(m[1]) : n >= Number(m[2]) && n <= Number(m[3])));
}

/** The most terms summed at one nesting level (ffmpeg refuses ~100). */
function widestSum(expr: string): number {
  const stripped = expr.replace(/eq\(n,\d+\)|between\(n,\d+,\d+\)/g, 'T');
  const counts: number[] = [1];
  let widest = 1;
  for (const ch of stripped) {
    if (ch === '(') counts.push(1);
    else if (ch === ')') widest = Math.max(widest, counts.pop()!);
    else if (ch === '+') counts[counts.length - 1]++;
  }
  return Math.max(widest, counts[0]);
}

describe('select expression', () => {
  it('uses runs for consecutive frames', () => {
    assert.equal(selectExpression([5, 1, 2, 3, 9, 10, 5]), 'between(n,1,3)+eq(n,5)+between(n,9,10)');
  });

  it('keeps exactly the asked frames (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 250 }), (indices) => {
        const expr = selectExpression(indices);
        const want = new Set(indices);
        for (let n = 0; n <= 302; n++) assert.equal(keeps(expr, n), want.has(n), `n=${n} in ${expr}`);
      }),
    );
  });

  it('nests long sums so no level is long enough for ffmpeg to refuse it', () => {
    const every2nd = Array.from({ length: 1024 }, (_, i) => 2 * i);
    const expr = selectExpression(every2nd);
    assert.ok(widestSum(expr) <= 50, `widest sum ${widestSum(expr)}`);
    for (const n of [0, 1, 2, 1000, 2046, 2047, 2048]) assert.equal(keeps(expr, n), n % 2 === 0 && n <= 2046, `n=${n}`);
  });

  it('rejects an empty or invalid set', () => {
    assert.throws(() => selectExpression([]));
    assert.throws(() => selectExpression([-1]));
    assert.throws(() => selectExpression([1.5]));
  });
});
