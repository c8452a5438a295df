import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isPlainName, plainName, PLAIN_NAME_RE } from '../../../src/core/package/names';

describe('package/names', () => {
  it('the plainName schema accepts exactly what isPlainName accepts', () => {
    const chars = fc.constantFrom('a', 'Z', '0', '.', '/', '\\', '\0', '\n', '-', '_', ' ', 'é');
    const names = fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 8 }), fc.string({ minLength: 250, maxLength: 260 }));
    fc.assert(
      fc.property(names, (s) => {
        assert.equal(PLAIN_NAME_RE.test(s), isPlainName(s), JSON.stringify(s));
        assert.equal(plainName.safeParse(s).success, isPlainName(s));
      }),
      { numRuns: 2000 },
    );
    for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'x\0', 'a..b', 'a\n..', 'x'.repeat(256)]) assert.equal(plainName.safeParse(bad).success, false, bad);
    for (const ok of ['a', 'a.b', '.hidden', 'v_fps0.25_s224', 'x'.repeat(255)]) assert.equal(plainName.safeParse(ok).success, true, ok);
  });
});
