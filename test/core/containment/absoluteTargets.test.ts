// The containment module takes absolute targets only (issue 41): the CLI makes every path flag absolute where it is
// parsed, so a relative target reaching here is a programming error (exit 1 with its stack), never read against the
// root: that read is what doubled the user's folders (`--output-jsonl data/sft/train.jsonl` wrote
// data/sft/data/sft/train.jsonl). Nothing is made before the refusal, the root included.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  appendLineUnder,
  mkdirUnder,
  mkdirUnderSync,
  openAppendUnder,
  openAppendUnderSync,
  openFreshUnder,
  openReadWriteUnder,
  openTruncatedUnder,
  RelativeTargetError,
  removeEmptyDirUnder,
  removeUnder,
  renameUnder,
  resolveInside,
  resolveInsideSync,
} from '../../../src/core/containment/rootFs';
import { exitFor } from '../../../src/core/errors';

describe('containment: absolute targets only', () => {
  let top: string;
  let root: string;
  beforeEach(() => {
    top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'abs-targets-')));
    root = path.join(top, 'data', 'sft'); // not made: a refused call must not make it either
  });
  afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

  const isRelativeError = (target: string) => (err: unknown) => {
    assert.ok(err instanceof RelativeTargetError, String(err));
    assert.ok(target.startsWith(err.target), `${err.target} is (the folder of) ${target}`); // a file's folder is made first
    // A programming error: exit 1 with the stack, not a user's exit 2.
    assert.equal(exitFor(err).code, 1);
    return true;
  };

  it('every operation refuses a relative target, async and sync, and makes nothing', async () => {
    const rel = 'data/sft/train.jsonl';
    const calls: [string, () => Promise<unknown>][] = [
      ['mkdirUnder', () => mkdirUnder(root, 'data/sft')],
      ['openAppendUnder', () => openAppendUnder(root, rel)],
      ['openTruncatedUnder', () => openTruncatedUnder(root, rel)],
      ['openFreshUnder', () => openFreshUnder(root, rel)],
      ['openReadWriteUnder', () => openReadWriteUnder(root, rel)],
      ['renameUnder', () => renameUnder(root, path.join(root, 'a'), rel)],
      ['removeUnder', () => removeUnder(root, rel)],
      ['removeEmptyDirUnder', () => removeEmptyDirUnder(root, 'data/sft')],
      ['resolveInside', () => resolveInside(root, rel)],
    ];
    for (const [name, call] of calls) {
      await assert.rejects(call(), isRelativeError(name === 'mkdirUnder' || name === 'removeEmptyDirUnder' ? 'data/sft' : rel), name);
    }
    assert.throws(() => mkdirUnderSync(root, 'data/sft'), isRelativeError('data/sft'));
    assert.throws(() => openAppendUnderSync(root, rel), isRelativeError(rel));
    assert.throws(() => appendLineUnder(root, rel, 'x\n'), isRelativeError(rel));
    assert.throws(() => resolveInsideSync(root, './data/../data/sft'), isRelativeError('./data/../data/sft'));
    assert.deepEqual(fs.readdirSync(top), [], 'nothing made');
  });

  it('an absolute target under the root is written where it names, once', async () => {
    const file = path.join(root, 'train.jsonl');
    const fh = await openFreshUnder(root, file);
    await fh.close();
    assert.ok(fs.statSync(file).isFile());
    assert.ok(!fs.existsSync(path.join(root, 'data')));
  });
});
