import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { clearSecrets, redactSecrets, registerSecret } from '../../../src/core/security/secrets';

describe('secrets: the one redactor', () => {
  afterEach(() => clearSecrets());

  it('masks a registered secret in a URL path, a query and a JSON body', () => {
    registerSecret('hf_abc/def+ghi=jkl', 'hf-token');
    const line = ['PUT https://hub.test/upload/hf_abc%2Fdef%2Bghi%3Djkl/part?sig=hf_abc%2Fdef%2Bghi%3Djkl', '{"token":"hf_abc/def+ghi=jkl"}'].join(' ');
    const out = redactSecrets(line);
    assert.ok(!out.includes('hf_abc'), out);
    assert.equal(out.split('<hf-token>').length - 1, 3);
  });

  it('leaves text alone when nothing is registered, and ignores values too short to be secrets', () => {
    registerSecret('abc');
    registerSecret('');
    registerSecret(undefined);
    assert.equal(redactSecrets('abc def'), 'abc def');
  });

  it('masks a longer secret whole when it contains a shorter one', () => {
    registerSecret('key-12345678', 'short');
    registerSecret('key-12345678-and-more', 'long');
    assert.equal(redactSecrets('x key-12345678-and-more y key-12345678'), 'x <long> y <short>');
  });

  it('no registered secret survives in any text around it (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: 40 }), fc.string(), fc.string(), (secret, before, after) => {
        clearSecrets();
        registerSecret(secret, 'k');
        const v = secret.trim();
        fc.pre(v.length >= 8 && !before.includes('<k>') && !after.includes('<k>'));
        const out = redactSecrets(`${before}${v}${after}|${encodeURIComponent(v)}`);
        return !out.includes(v) && !out.includes(encodeURIComponent(v));
      }),
      { numRuns: 300 },
    );
  });
});
