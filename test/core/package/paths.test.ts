// isInside: the containment rule the report panel's "open file" uses (after realpath on both sides).
import * as assert from 'node:assert/strict';
import { isInside } from '../../../src/core/package/paths';

describe('package paths: isInside', () => {
  it('takes the root and what lies under it, and nothing else', () => {
    assert.ok(isInside('/r/run', '/r/run'));
    assert.ok(isInside('/r/run', '/r/run/eval/x.jsonl'));
    assert.ok(isInside('/r/run', '/r/run/..hidden'));
    assert.ok(!isInside('/r/run', '/r/run2/x'));
    assert.ok(!isInside('/r/run', '/r'));
    assert.ok(!isInside('/r/run', '/etc/passwd'));
    assert.ok(!isInside('/r/run', '/r/run/../other'.replace('/run/..', '')));
  });
});
