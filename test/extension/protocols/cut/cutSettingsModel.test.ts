// "Cut videos…" runs the real verb's flags: `fpsweep avtime cut --input-root IN --output-root OUT --cutter C … --detach`.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CUT_VERB, cutCliArgs, cutSettingsSchema, cutterProblem } from '../../../../src/extension/protocols/cut/cutSettingsModel';

describe('the cut start’s settings and CLI arguments (issue 27 point 6)', () => {
  it('defaults to the builtin cutter, nothing degraded allowed', () => {
    assert.deepEqual(cutSettingsSchema.parse({}), { inputRoot: '', outputRoot: '', cutter: 'builtin', allowDegraded: false });
    assert.equal(cutSettingsSchema.safeParse({ allowDegraded: 'yes' }).success, false);
  });

  it('gives the verb its flags, the cutter command as one argument, and --detach last', () => {
    assert.equal(CUT_VERB, 'avtime cut');
    assert.deepEqual(cutCliArgs({ inputRoot: '/v', outputRoot: '/o', cutter: 'builtin', allowDegraded: true }), [
      'cut',
      '--input-root',
      '/v',
      '--output-root',
      '/o',
      '--cutter',
      'builtin',
      '--detach',
    ]);
    const cmd = 'python3 /opt/avcut.py {input} --config {config} --output-root {staging}';
    assert.deepEqual(cutCliArgs({ inputRoot: '/v', outputRoot: '/o', cutter: ` ${cmd} `, allowDegraded: true }).slice(5), [
      '--cutter',
      cmd,
      '--allow-degraded',
      '--detach',
    ]);
  });

  it('keeps every path as one word, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        const args = cutCliArgs({ inputRoot: a, outputRoot: b, cutter: 'builtin', allowDegraded: false });
        assert.equal(args[args.indexOf('--input-root') + 1], a);
        assert.equal(args[args.indexOf('--output-root') + 1], b);
        assert.equal(args.length, 8);
      }),
    );
  });

  it('refuses an empty cutter, and a command without {input}', () => {
    assert.equal(cutterProblem('builtin'), undefined);
    assert.equal(cutterProblem('avcut {input}'), undefined);
    assert.match(cutterProblem('  ') ?? '', /give 'builtin'/);
    assert.match(cutterProblem('avcut.py --x') ?? '', /\{input\}/);
  });
});
