import * as assert from 'node:assert/strict';
import { defaultRunbook, parseRunbook, parseStep, stringifyRunbook } from '../../../src/extension/runbook/format';
import { InputError } from '../../../src/core/errors';

describe('runbook format', () => {
  it("a new runbook holds the seed's steps in order", () => {
    const steps = defaultRunbook()
      .cells.filter((c) => c.kind === 'step')
      .map((c) => parseStep(c.value))
      .filter((s) => s.verb !== 'avtime');
    assert.deepEqual(
      steps.map((s) => s.verb),
      ['prepare', 'doctor', 'dry-run', 'run', 'report', 'run', 'report', 'return'],
    );
    assert.deepEqual(steps[3].args, ['--pilot', '--detach']);
    assert.deepEqual(steps[5].args, ['--detach']);
  });

  it('then the AVTime cells: sample → inputs → run --detach → status → report', () => {
    const steps = defaultRunbook()
      .cells.filter((c) => c.kind === 'step')
      .map((c) => parseStep(c.value))
      .filter((s) => s.verb === 'avtime');
    assert.deepEqual(
      steps.map((s) => s.args),
      [['sample', '--out', 'data/AVTime-Bench'], ['inputs'], ['run', '--detach'], ['status'], ['report']],
    );
  });

  it('an avtime step names one of its stages', () => {
    assert.deepEqual(parseStep('fpsweep avtime score --run-id r1'), { verb: 'avtime', args: ['score', '--run-id', 'r1'] });
    assert.throws(() => parseStep('fpsweep avtime'), /unknown avtime step ''/);
    assert.throws(() => parseStep('fpsweep avtime rm -rf'), /unknown avtime step 'rm'/);
    assert.throws(() => parseStep('fpsweep avtime run --package /x'), /leave out --package/);
  });

  it('round-trips through text, and an empty file is a new runbook', () => {
    const book = defaultRunbook();
    assert.deepEqual(parseRunbook(stringifyRunbook(book)), book);
    assert.deepEqual(parseRunbook(''), book);
  });

  it('a malformed runbook is an error naming the file and the field', () => {
    assert.throws(
      () => parseRunbook('{', 'x.fpsweep-runbook'),
      (e: Error) => e instanceof InputError && /x\.fpsweep-runbook: not valid JSON/.test(e.message),
    );
    assert.throws(() => parseRunbook('{"fpsweepRunbook":1,"cells":[{"kind":"shell","value":"rm -rf /"}]}', 'r'), /cells\.0\.kind/);
  });

  it('parses a step: optional "fpsweep", quotes group words, comments skipped', () => {
    assert.deepEqual(parseStep('# the pilot\nfpsweep run --pilot --bench "MVBench,LVBench"'), { verb: 'run', args: ['--pilot', '--bench', 'MVBench,LVBench'] });
    assert.deepEqual(parseStep('dry-run --json'), { verb: 'dry-run', args: ['--json'] });
  });

  it('refuses what is not a step of this package', () => {
    assert.throws(() => parseStep('fpsweep sample --out /tmp/x'), /unknown step 'sample'/);
    assert.throws(() => parseStep('rm -rf /'), /unknown step 'rm'/);
    assert.throws(() => parseStep('fpsweep run --package /elsewhere'), /leave out --package/);
    assert.throws(() => parseStep('  \n# only a comment'), /empty step/);
  });
});
