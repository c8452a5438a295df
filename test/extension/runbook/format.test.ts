import * as assert from 'node:assert/strict';
import { defaultRunbook, parseRunbook, parseStep, stringifyRunbook } from '../../../src/extension/runbook/format';
import { InputError } from '../../../src/core/errors';
import { avtimeRunbook } from '../../../src/extension/protocols/avtime/avtimeRunbook';
import { fpRunbook } from '../../../src/extension/protocols/fp/fpRunbook';

const SECTIONS = [fpRunbook, avtimeRunbook];

describe('runbook format', () => {
  it("a new runbook holds the seed's steps in order", () => {
    const steps = defaultRunbook(SECTIONS)
      .cells.filter((c) => c.kind === 'step')
      .map((c) => parseStep(c.value, SECTIONS))
      .filter((s) => s.verb !== 'avtime');
    assert.deepEqual(
      steps.map((s) => s.verb),
      ['prepare', 'doctor', 'dry-run', 'run', 'report', 'run', 'report', 'return'],
    );
    assert.deepEqual(steps[3].args, ['--pilot', '--detach']);
    assert.deepEqual(steps[5].args, ['--detach']);
  });

  it('then the AVTime cells: sample → inputs → run --detach → status → report', () => {
    const steps = defaultRunbook(SECTIONS)
      .cells.filter((c) => c.kind === 'step')
      .map((c) => parseStep(c.value, SECTIONS))
      .filter((s) => s.verb === 'avtime');
    assert.deepEqual(
      steps.map((s) => s.args),
      [['sample', '--out', 'data/AVTime-Bench'], ['inputs'], ['run', '--detach'], ['status'], ['report']],
    );
  });

  it('an avtime step names one of its stages', () => {
    assert.deepEqual(parseStep('fpsweep avtime score --run-id r1', SECTIONS), { verb: 'avtime', args: ['score', '--run-id', 'r1'] });
    assert.throws(() => parseStep('fpsweep avtime', SECTIONS), /unknown avtime step ''/);
    assert.throws(() => parseStep('fpsweep avtime rm -rf', SECTIONS), /unknown avtime step 'rm'/);
    assert.throws(() => parseStep('fpsweep avtime run --package /x', SECTIONS), /leave out --package/);
  });

  it('round-trips through text, and an empty file is a new runbook', () => {
    const book = defaultRunbook(SECTIONS);
    assert.deepEqual(parseRunbook(stringifyRunbook(book)), book);
    assert.deepEqual(parseRunbook('', 'runbook', SECTIONS), book);
  });

  it('a malformed runbook is an error naming the file and the field', () => {
    assert.throws(
      () => parseRunbook('{', 'x.fpsweep-runbook'),
      (e: Error) => e instanceof InputError && /x\.fpsweep-runbook: not valid JSON/.test(e.message),
    );
    assert.throws(() => parseRunbook('{"fpsweepRunbook":1,"cells":[{"kind":"shell","value":"rm -rf /"}]}', 'r'), /cells\.0\.kind/);
  });

  it('parses a step: optional "fpsweep", quotes group words, comments skipped', () => {
    assert.deepEqual(parseStep('# the pilot\nfpsweep run --pilot --bench "MVBench,LVBench"', SECTIONS), {
      verb: 'run',
      args: ['--pilot', '--bench', 'MVBench,LVBench'],
    });
    assert.deepEqual(parseStep('dry-run --json', SECTIONS), { verb: 'dry-run', args: ['--json'] });
  });

  it('refuses what is not a step of this package', () => {
    assert.throws(() => parseStep('fpsweep sample --out /tmp/x', SECTIONS), /unknown step 'sample'/);
    assert.throws(() => parseStep('rm -rf /', SECTIONS), /unknown step 'rm'/);
    assert.throws(() => parseStep('fpsweep run --package /elsewhere', SECTIONS), /leave out --package/);
    assert.throws(() => parseStep('  \n# only a comment', SECTIONS), /empty step/);
  });
});
