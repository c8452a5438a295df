// The one error-to-exit rule the CLI, the worker and the run types' jobs share: the user's errors exit 2 with
// their message, anything else exits 1 with its stack.
import { strict as assert } from 'node:assert';
import { exitFor, InputError, isUserError, UsageError } from '../../src/core/errors';
import { LockHeldError } from '../../src/core/runner/lock';

describe('errors: exit mapping', () => {
  it("the user's errors exit 2 with their message, no stack", () => {
    const held = new LockHeldError({ pid: 42, hostname: 'h', startedAt: '2026-01-01T00:00:00Z' }, '/pkg/.fpsweep/lock');
    for (const err of [new InputError('bad line', { file: 'a.jsonl', line: 3 }), new UsageError('--shard wants K/N'), held]) {
      assert.ok(isUserError(err), err.name);
      assert.deepEqual(exitFor(err), { code: 2, text: err.message });
    }
    assert.equal(exitFor(new InputError('bad line', { file: 'a.jsonl', line: 3 })).text, 'a.jsonl:3: bad line');
  });

  it('an error named as one of them counts (thrown by another copy of the module)', () => {
    const foreign = Object.assign(new Error('no such file'), { name: 'InputError' });
    assert.deepEqual(exitFor(foreign), { code: 2, text: 'no such file' });
  });

  it('anything else exits 1 with its stack, or its text when it is no Error', () => {
    const bug = new TypeError('x is undefined');
    assert.deepEqual(exitFor(bug), { code: 1, text: bug.stack });
    assert.deepEqual(exitFor('plain string'), { code: 1, text: 'plain string' });
    assert.deepEqual(exitFor(undefined), { code: 1, text: 'undefined' });
    assert.equal(isUserError(null), false);
  });
});
