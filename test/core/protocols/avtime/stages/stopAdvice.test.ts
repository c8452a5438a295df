// What a stopped AVTime run tells the user to do next: a canonical run stopped before its target shards
// finished cannot resume (its shards never do), so "--resume" would only be refused.
import * as assert from 'node:assert/strict';
import { stopAdvice } from '../../../../../src/core/protocols/avtime/stages/stopAdvice';

const stages = (infer: string) =>
  [
    { name: 'inputs', state: 'done' },
    { name: 'infer', state: infer },
  ] as never;

describe('avtime: the advice of a stopped run', () => {
  it('a canonical run stopped in or before target inference: start a new run', () => {
    for (const infer of ['todo', 'running', 'failed']) assert.match(stopAdvice({ canonical: true, stages: stages(infer) }), /never resume: start a new run/);
  });
  it('a canonical run past inference, or a non-canonical run: --resume', () => {
    assert.equal(stopAdvice({ canonical: true, stages: stages('done') }), 'continue with --resume');
    assert.equal(stopAdvice({ canonical: false, stages: stages('running') }), 'continue with --resume');
  });
});
