import { strict as assert } from 'node:assert';
import { pickVerb } from '../../src/cli/main';

describe('cli: pickVerb', () => {
  const table = { avtime: 1, 'avtime caption': 2, status: 3 };

  it('takes a two-word verb a run type registered under another run type', () => {
    assert.deepEqual(pickVerb(['avtime', 'caption', 'ROOT', '--base-url', 'u'], table), {
      verb: 'avtime caption',
      rest: ['ROOT', '--base-url', 'u'],
    });
  });

  it('falls back to the one-word verb, its stage left in the arguments', () => {
    assert.deepEqual(pickVerb(['avtime', 'judge', '--bench-root', 'b'], table), {
      verb: 'avtime',
      rest: ['judge', '--bench-root', 'b'],
    });
    assert.deepEqual(pickVerb(['status'], table), { verb: 'status', rest: [] });
  });
});
