// The flag helpers a command shares: strict flag parsing (an unknown flag is a UsageError carrying the help) and the
// options' schema check (each zod issue as `path: message`, then the help).
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { main } from '../../src/cli/main';
import { HelpRequested, parseCommandArgs, parseOptionsOrUsage, parseVerbArgs, requiredFlag, stringFlag } from '../../src/core/cli/options';
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

describe('--help', () => {
  // process.exit would end the test run itself (with status 0), so it is made to throw while these run.
  let realExit: typeof process.exit;
  beforeEach(() => {
    realExit = process.exit;
    process.exit = ((code?: number) => {
      throw new Error(`process.exit(${code}) called`);
    }) as typeof process.exit;
  });
  afterEach(() => {
    process.exit = realExit;
  });

  it('the parsers throw HelpRequested with the help instead of exiting', () => {
    for (const parse of [() => parseCommandArgs(['--help'], OPTIONS, true, HELP), () => parseVerbArgs(['-h'], {}, HELP)]) {
      assert.throws(parse, (err: unknown) => err instanceof HelpRequested && err.help === HELP);
    }
  });

  it("main prints the verb's help on stdout and returns 0, and the process goes on", async () => {
    const written: string[] = [];
    const realWrite = process.stdout.write;
    process.stdout.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    try {
      code = await main(['status', '--help']);
    } finally {
      process.stdout.write = realWrite;
    }
    assert.equal(code, 0);
    assert.match(written.join(''), /usage: fpsweep status/);
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

describe('requiredFlag and stringFlag (the verbs’ string flags)', () => {
  it('gives a string flag’s value, absent or empty as undefined', () => {
    assert.equal(stringFlag({ out: 'a.jsonl' }, 'out'), 'a.jsonl');
    assert.equal(stringFlag({ out: '' }, 'out'), undefined);
    assert.equal(stringFlag({}, 'out'), undefined);
    assert.equal(stringFlag({ out: true }, 'out'), undefined);
  });

  it('refuses a missing or empty required flag with a usage error naming it, then the help', () => {
    assert.equal(requiredFlag({ out: 'a.jsonl' }, 'out', HELP), 'a.jsonl');
    for (const values of [{}, { out: '' }])
      assert.throws(
        () => requiredFlag(values, 'out', HELP),
        (e: unknown) => e instanceof UsageError && e.message === `--out is required\n\n${HELP}`,
      );
  });
});
