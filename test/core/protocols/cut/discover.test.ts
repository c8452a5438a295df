// Discovery (SPEC-AVTIME-DATA §2): the six extensions in any case, nothing else, one output directory per stem.
import { strict as assert } from 'node:assert';
import { InputError } from '../../../../src/core/errors';
import { sourcesFrom, sourceStem } from '../../../../src/core/protocols/cut/discover';

describe('cut: discovery', () => {
  it('takes the six extensions in any case and nothing else', () => {
    assert.deepEqual(['a.mp4', 'b.M4V', 'c.mov', 'd.MKV', 'e.avi', 'f.WebM', 'g.mp3', 'h.txt', 'i.mp4.part', 'noext'].map(sourceStem), [
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      null,
      null,
      null,
      null,
    ]);
    assert.deepEqual(
      sourcesFrom('/in', ['z.mp4', 'a.mov', 'notes.txt']).map((s) => [s.stem, s.file]),
      [
        ['a', '/in/a.mov'],
        ['z', '/in/z.mp4'],
      ],
    );
  });

  it('refuses every shared stem, naming both files, and a stem that cannot be an output directory', () => {
    assert.throws(
      () => sourcesFrom('/in', ['talk.mp4', 'talk.MKV', 'x.mov', 'x.webm', 'ok.mp4']),
      (e: Error) =>
        e instanceof InputError &&
        e.message.includes("talk.MKV and talk.mp4 share the stem 'talk'") &&
        e.message.includes("x.mov and x.webm share the stem 'x'") &&
        !e.message.includes('ok.mp4'),
    );
    // '.mp4' is a hidden file with no extension (as Python's Path('.mp4').suffix is ''): not a source.
    assert.deepEqual(sourcesFrom('/in', ['.mp4']), []);
    assert.throws(() => sourcesFrom('/in', ['.staging.mp4']), /cannot name an output directory/);
  });
});
