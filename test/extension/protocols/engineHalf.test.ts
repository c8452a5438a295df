// A UI half before its engine half: named by the title it was given, its layout refused in words; once registered,
// the engine half's title and layout.
import * as assert from 'node:assert/strict';
import { PROTOCOLS } from '../../../src/core/protocols/registry';
import { engineHalf } from '../../../src/extension/protocols/engineHalf';

describe('a run type’s engine half, as its UI half finds it', () => {
  it('without it in the build: the given title, no engine, a layout refused in words', () => {
    const { engine, protocol } = engineHalf('not-registered', 'Later');
    assert.equal(engine(), undefined);
    assert.equal(protocol.title, 'Later');
    assert.throws(() => protocol.runRoot('/x'), /the not-registered run type is not in this build/);
  });

  it('with it registered: its title and its layout', () => {
    const registered = PROTOCOLS.all[0];
    const { engine, protocol } = engineHalf(registered.id, 'ignored');
    assert.equal(engine(), registered);
    assert.equal(protocol.title, registered.title);
    assert.equal(protocol.runRoot('/r').root, registered.runRoot('/r').root);
  });
});
