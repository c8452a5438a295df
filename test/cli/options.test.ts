// The flag helpers a command shares: strict flag parsing (an unknown flag is a UsageError carrying the help) and the
// options' schema check (each zod issue as `path: message`, then the help).
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { parseCommandArgs, parseOptionsOrUsage } from '../../src/cli/options';
import { UsageError } from '../../src/core/errors';

const HELP = 'usage: thing [--n N] ROOT';
const OPTIONS = { help: { type: 'boolean', short: 'h' }, n: { type: 'string' } } as const;

describe('parseCommandArgs', () => {
  it('gives the values and positionals', () => {
    const p = parseCommandArgs(['--n', '3', 'root'], OPTIONS, true, HELP);
    assert.equal(p.values.n, '3');
    assert.deepEqual(p.positionals, ['root']);
  });

  it('an unknown flag, or a positional where none is allowed: UsageError with the help', () => {
    for (const [args, positionals] of [
      [['--nope'], true],
      [['root'], false],
    ] as const) {
      assert.throws(
        () => parseCommandArgs([...args], OPTIONS, positionals, HELP),
        (err: unknown) => err instanceof UsageError && err.message.endsWith(`\n\n${HELP}`) && err.message.length > HELP.length + 2,
      );
    }
  });
});

describe('parseOptionsOrUsage', () => {
  const schema = z.object({ n: z.number().int().positive(), tags: z.array(z.string()).default([]), inner: z.object({ url: z.string().url() }) });

  it("returns the schema's output (defaults applied)", () => {
    assert.deepEqual(parseOptionsOrUsage(schema, HELP, { n: 2, inner: { url: 'http://127.0.0.1:1' } }), {
      n: 2,
      tags: [],
      inner: { url: 'http://127.0.0.1:1' },
    });
  });

  it('each issue as path: message, joined by "; ", then the help', () => {
    assert.throws(
      () => parseOptionsOrUsage(schema, HELP, { n: 0, inner: { url: 'nope' } }),
      (err: unknown) => {
        assert.ok(err instanceof UsageError);
        const [issues, help] = err.message.split('\n\n');
        assert.equal(help, HELP);
        assert.deepEqual(
          issues.split('; ').map((l) => l.split(':')[0]),
          ['n', 'inner.url'],
        );
        return true;
      },
    );
  });
});
