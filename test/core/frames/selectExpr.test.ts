import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { selectExpression } from '../../../src/core/frames';

/** Evaluates the expression the way ffmpeg's select filter would, for frame number n. */
function keeps(expr: string, n: number): boolean {
  return expr.split('+').some((term) => {
    const eq = /^eq\(n,(\d+)\)$/.exec(term);
    if (eq) return n === Number(eq[1]);
    const bt = /^between\(n,(\d+),(\d+)\)$/.exec(term);
    if (bt) return n >= Number(bt[1]) && n <= Number(bt[2]);
    throw new Error(`unexpected term ${term}`);
  });
}

describe('select expression', () => {
  it('uses runs for consecutive frames', () => {
    assert.equal(selectExpression([5, 1, 2, 3, 9, 10, 5]), 'between(n,1,3)+eq(n,5)+between(n,9,10)');
  });

  it('keeps exactly the asked frames (property)', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 120 }), (indices) => {
      const expr = selectExpression(indices);
      const want = new Set(indices);
      for (let n = 0; n <= 302; n++) assert.equal(keeps(expr, n), want.has(n), `n=${n} in ${expr}`);
    }));
  });

  it('rejects an empty or invalid set', () => {
    assert.throws(() => selectExpression([]));
    assert.throws(() => selectExpression([-1]));
    assert.throws(() => selectExpression([1.5]));
  });
});
