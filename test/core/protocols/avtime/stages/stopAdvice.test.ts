// What a stopped AVTime run tells the user to do next: a canonical run stopped before its target shards
// finished cannot resume (its shards never do), so "--resume" would only be refused.
import * as assert from 'node:assert/strict';
import { inferFailureAdvice, stopAdvice } from '../../../../../src/core/protocols/avtime/stages/stopAdvice';

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
  it('given --output-root, a new run is a new --output-root (a new --run-id would land in the same root)', () => {
    assert.match(stopAdvice({ canonical: true, stages: stages('running') }, 'new --output-root'), /start a new run \(new --output-root\)$/);
  });
  it('a failed target inference: the first failed row, its server words and what to do; then a new run or the resume', () => {
    const row = { shard: 1, endpoint: 'http://h:1', id: 'v5', kind: 'server_down', message: 'ECONNREFUSED: connect ECONNREFUSED h:1' };
    const canonical = inferFailureAdvice(row, { canonical: true, continuing: false, runId: 'r', outputRootGiven: true });
    assert.match(canonical, /^The first failed row: shard1 v5 \(server_down\) at http:\/\/h:1: ECONNREFUSED.*; likely: nothing listens/);
    assert.match(canonical, /; do: restart the server at http:\/\/h:1: .*curl http:\/\/h:1\/health.*; then start a new run \(new --output-root\): a canonical/);
    assert.doesNotMatch(canonical, /--resume \(|same command/);
    const kept = inferFailureAdvice(row, { canonical: false, continuing: false, runId: 'r', outputRootGiven: true });
    assert.match(kept, /; then run the same command with --resume \(run id r\): it resumes .*; the failed rows are asked again$/);
    const refused = inferFailureAdvice(
      { ...row, kind: 'request', message: 'HTTP 400: bad video' },
      { canonical: true, continuing: true, runId: 'r', outputRootGiven: false },
    );
    assert.match(refused, /HTTP 400: bad video; do: fix what the row's error names; then start a new run \(new --run-id\)/);
    assert.match(
      inferFailureAdvice(null, { canonical: false, continuing: true, runId: 'r', outputRootGiven: false }),
      /^do: run the same command again: it resumes/,
    );
  });
});
