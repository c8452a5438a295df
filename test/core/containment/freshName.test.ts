// The one maker of unguessable names (issue 42): a temp beside a file, a frame store temp, a private staging folder.
// Nothing can be planted at such a name beforehand because it cannot be known ahead: 16 random hex digits each time.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { tempBeside, unpredictableName } from '../../../src/core/containment/freshName';

const HEX16 = /[0-9a-f]{16}/;

describe('containment: unpredictable names beside a file (freshName)', () => {
  it('a temp beside a file: in its folder, hidden, `.<name>.tmp-<pid>-<16 hex>`, one name (no separator)', () => {
    const file = path.join('/some', 'root', 'logs', 'runner.log');
    const tmp = tempBeside(file);
    assert.equal(path.dirname(tmp), path.dirname(file), 'beside the file: a rename over it stays in one folder');
    const name = path.basename(tmp);
    assert.ok(name.startsWith('.'), `hidden: ${name}`);
    assert.match(name, new RegExp(`^\\.runner\\.log\\.tmp-${process.pid}-[0-9a-f]{16}$`));
    assert.ok(!name.includes('/') && !name.includes('\\') && !name.includes('\0'), name);
  });

  it('distinct and unpredictable: 2,000 names share no random part, and none follows from the one before', () => {
    const file = path.join('/r', 'fp_returns_h_20261202.tar.gz');
    const parts = Array.from({ length: 2000 }, () => HEX16.exec(path.basename(tempBeside(file)))![0]);
    assert.equal(new Set(parts).size, parts.length, 'no two the same');
    // Not a counter or a clock: consecutive names differ in many of their 64 bits, not in the last few.
    const bitsApart = (a: string, b: string) => (BigInt(`0x${a}`) ^ BigInt(`0x${b}`)).toString(2).replace(/0/g, '').length;
    const mean = parts.slice(1).reduce((s, p, i) => s + bitsApart(p, parts[i]), 0) / (parts.length - 1);
    assert.ok(mean > 24 && mean < 40, `consecutive names differ in ${mean.toFixed(1)} of 64 bits on average (random: 32)`);
  });

  it('a name with a prefix and a suffix is one name in a folder; a separator in either is refused', () => {
    const name = unpredictableName(`.tmp-${process.pid}-`, '.jpg');
    assert.match(name, new RegExp(`^\\.tmp-${process.pid}-[0-9a-f]{16}\\.jpg$`));
    assert.notEqual(unpredictableName('.stage-'), unpredictableName('.stage-'));
    for (const [prefix, suffix] of [
      ['../', ''],
      ['a/b-', ''],
      ['x-', '/y'],
      ['x-', '\\y'],
      ['x\0', ''],
    ])
      assert.throws(() => unpredictableName(prefix, suffix), RangeError, JSON.stringify([prefix, suffix]));
  });
});
