// The user's cutter as an argv template: words as a shell would split them (never run through one), the
// placeholders checked and filled where they stand.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { UsageError } from '../../../../src/core/errors';
import { fillCutterTemplate, parseCutterTemplate, splitCommandLine } from '../../../../src/core/protocols/cut/cutterCommand';

/** A word quoted so that splitCommandLine gives it back whole. */
const quote = (w: string) => `'${w.replace(/'/g, `'"'"'`)}'`;

describe('cut: the cutter template', () => {
  it('splits like a shell: quotes group, backslashes escape, $ and ; stay literal', () => {
    assert.deepEqual(splitCommandLine(`python3 "/opt/my avcut/avcut.py" {input} --tag 'a b' x\\ y "q\\"q" $HOME;rm`), [
      'python3',
      '/opt/my avcut/avcut.py',
      '{input}',
      '--tag',
      'a b',
      'x y',
      'q"q',
      '$HOME;rm',
    ]);
    assert.deepEqual(splitCommandLine(`a '' b`), ['a', '', 'b']);
    assert.throws(() => splitCommandLine(`a "b`), UsageError);
  });

  it('gives back any words it is given quoted', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 6 }), (words) => {
        assert.deepEqual(splitCommandLine(words.map(quote).join(' ')), words);
      }),
    );
  });

  it('needs {input} and {staging}, knows no other placeholder, and fills them inside words', () => {
    const argv = parseCutterTemplate('python3 avcut.py {input} --config {config} --output-root={staging}');
    assert.deepEqual(fillCutterTemplate(argv, { input: '/v/a b.mp4', config: '/c.yaml', staging: '/o/.staging/a b' }), [
      'python3',
      'avcut.py',
      '/v/a b.mp4',
      '--config',
      '/c.yaml',
      '--output-root=/o/.staging/a b',
    ]);
    assert.deepEqual(parseCutterTemplate('["cut", "{input}", "{staging}"]'), ['cut', '{input}', '{staging}']);
    assert.throws(() => parseCutterTemplate('avcut {input}'), /must use \{staging\}/);
    assert.throws(() => parseCutterTemplate('avcut {input} {staging} {gpu}'), /unknown placeholder \{gpu\}/);
    assert.throws(() => parseCutterTemplate('[1, 2]'), /array of strings/);
    assert.throws(() => fillCutterTemplate(argv, { input: 'i', config: null, staging: 's' }), /pass --config FILE/);
  });
});
