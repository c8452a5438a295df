// The bad-input matrix (issue 41), generated from the verb registry: every verb main.ts registers (and each `avtime`
// stage and data verb avtime.ts dispatches) exports its flags with their rules (src/core/cli/options.ts), and each
// flag with a rule gets the cases its rule refuses: a path flag × {missing, a file where a folder is wanted (or a
// folder where a file is), an empty folder where a root is wanted, relative with folders, `./a/../a`}, a number flag
// × {a word, 0 where 0 is out of range, negative, huge}, an enum × {unknown}. Each case is typed as a person would,
// from a temp cwd with relative paths, and must exit 2 naming the flag, print no stack trace and create nothing (the
// cwd's tree is the same before and after). A new verb or flag is covered by being registered with its rule.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { verbs } from '../../src/cli/main';
import { subs as avtimeSubs, flags as avtimeFlags } from '../../src/core/protocols/avtime/cli/avtime';
import { AVTIME_VERBS } from '../../src/core/protocols/avtime/stages/options';
import type { OptionSpec, ValueRule } from '../../src/core/cli/options';
import { treeOf, typed } from '../helpers/typed';

interface Positional {
  name: string;
  rule: Extract<ValueRule, { kind: 'path' }>;
}
interface VerbEntry {
  words: string[];
  flags: OptionSpec;
  positionals?: Positional[];
  /** Arguments after the case's own, to pick the verb's form (the seed's normalize is the one given --raw). */
  extra?: (flag: string) => string[];
}
type Loaded = { flags?: OptionSpec; positionals?: Positional[] };

/** Verbs without flags of their own to check, and why. */
const EXEMPT: Record<string, string> = {
  demo: 'runs the other verbs as a person types them; its own --out is covered by the demo reruns (docs41)',
};

/** Every verb as it is typed, with its flags: the registry, walked as docs/CLI.md's generator walks it. */
function registry(): VerbEntry[] {
  const out: VerbEntry[] = [];
  for (const [name, load] of Object.entries(verbs)) {
    if (name === 'avtime') {
      for (const [sub, loadSub] of Object.entries(avtimeSubs)) {
        if ((AVTIME_VERBS as readonly string[]).includes(sub)) out.push({ words: ['avtime', sub], flags: avtimeFlags });
        if (sub === 'normalize') {
          const seed = require('../../src/core/protocols/avtime/data/cli/normalize') as Loaded;
          out.push({ words: ['avtime', 'normalize'], flags: seed.flags!, extra: (f) => (f === 'raw' ? [] : ['--raw', 'raw.jsonl']) });
        } else if (sub === 'train') {
          const train = loadSub() as unknown as Loaded;
          for (const k of ['sft', 'grpo']) out.push({ words: ['avtime', 'train', k], flags: train.flags! });
        } else if (!(AVTIME_VERBS as readonly string[]).includes(sub)) {
          const m = loadSub() as unknown as Loaded;
          assert.ok(m.flags, `avtime ${sub} registers no flags (export const flags from its verb module)`);
          out.push({ words: ['avtime', sub], flags: m.flags, positionals: m.positionals });
        }
      }
      continue;
    }
    const m = load() as unknown as Loaded;
    if (EXEMPT[name]) continue;
    assert.ok(m.flags, `${name} registers no flags (export const flags from its verb module)`);
    out.push({ words: name.split(' '), flags: m.flags, positionals: m.positionals });
  }
  return out;
}

/** The cwd every case starts from: an empty folder, a file, a folder holding one file, a folder with folders in it. */
function makeCwd(): string {
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'matrix-')));
  fs.mkdirSync(path.join(cwd, 'empty'));
  fs.mkdirSync(path.join(cwd, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(cwd, 'afile'), 'not empty\n');
  fs.mkdirSync(path.join(cwd, 'full'));
  fs.writeFileSync(path.join(cwd, 'full', 'x'), 'x\n');
  return cwd;
}

/** The values a path rule refuses, each with its case's name. */
function pathCases(rule: Extract<ValueRule, { kind: 'path' }>): [string, string][] {
  switch (rule.is) {
    case 'dir':
      return [
        ['missing', 'no/such/dir'],
        ['a file where a folder is wanted', 'afile'],
        ['relative with folders, missing', 'a/b/missing'],
        ['./a/../a, missing', './a/../a/missing'],
        ...(rule.root
          ? ([
              ['an empty folder', 'empty'],
              ['relative with folders, not the root', 'a/b'],
              ['./a/../a, not the root', './a/../a'],
            ] as [string, string][])
          : []),
      ];
    case 'file':
      return [
        ['missing', 'no/such.jsonl'],
        ['a folder where a file is wanted', 'empty'],
        ['relative with folders, a folder', 'a/b'],
        ['./a/../a, a folder', './a/../a'],
      ];
    case 'out-file':
      return [
        ['a folder where a file is wanted', 'empty'],
        ['relative with folders, a folder', 'a/b'],
        ['./a/../a, a folder', './a/../a'],
        ...(rule.fresh ? ([['an existing file (outputs are immutable)', 'afile']] as [string, string][]) : []),
      ];
    case 'out-dir':
      return [
        ['a file where a folder is wanted', 'afile'],
        ['relative with folders, a file', 'a/../afile'],
        ...(rule.fresh
          ? ([
              ['a folder that is not empty', 'full'],
              ['./a/../a, not empty', './a/../a'],
            ] as [string, string][])
          : []),
      ];
    case 'any':
      return [];
  }
}

function valueCases(rule: ValueRule): [string, string][] {
  switch (rule.kind) {
    case 'int':
    case 'number':
      return [['a word', 'abc'], ...(rule.min > 0 ? ([['0', '0']] as [string, string][]) : []), ['negative', '-1'], ['huge', '1e400']];
    case 'enum':
      return [['unknown', 'no-such-value']];
    case 'list':
      return rule.values ? [['unknown', 'no-such-value']] : [];
    case 'path':
      return pathCases(rule);
  }
}

interface Case {
  title: string;
  args: string[];
  named: string;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const v of registry()) {
    for (const [flag, spec] of Object.entries(v.flags)) {
      if (spec.type !== 'string' || !spec.value) continue;
      for (const [what, value] of valueCases(spec.value)) {
        out.push({
          title: `fpsweep ${v.words.join(' ')} --${flag} ${value} (${what})`,
          args: [...v.words, `--${flag}`, value, ...(v.extra?.(flag) ?? [])],
          named: `--${flag}`,
        });
      }
    }
    for (const p of v.positionals ?? []) {
      for (const [what, value] of pathCases(p.rule))
        out.push({ title: `fpsweep ${v.words.join(' ')} ${value} (${p.name}: ${what})`, args: [...v.words, value], named: p.name });
    }
  }
  return out;
}

describe('the bad-input matrix: every flag of every registered verb, as typed', function () {
  this.timeout(120_000);
  const all = cases();
  let cwd: string;
  const saved: Record<string, string | undefined> = {};
  before(() => {
    cwd = makeCwd();
    // The knobs the flags fall back to: a case is the flag's, not the environment's.
    for (const v of registry())
      for (const s of Object.values(v.flags))
        if (s.type === 'string' && s.value?.env) {
          saved[s.value.env] = process.env[s.value.env];
          delete process.env[s.value.env];
        }
  });
  after(() => {
    fs.rmSync(cwd, { recursive: true, force: true });
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  });

  it('covers every registered verb, and enough cases to mean it', () => {
    const covered = new Set(registry().map((v) => v.words.slice(0, 2).join(' ')));
    for (const name of Object.keys(verbs)) if (!EXEMPT[name]) assert.ok(covered.has(name) || name === 'avtime', `${name} is not in the matrix`);
    assert.ok(all.length > 300, `${all.length} cases`);
  });

  it('each case: exit 2, the flag named, no stack trace, nothing created', async () => {
    const before = treeOf(cwd);
    const bad: string[] = [];
    const t0 = Date.now();
    for (const c of all) {
      const r = await typed(cwd, c.args);
      const after = treeOf(cwd);
      const problems = [
        r.code !== 2 ? `exit ${r.code}` : '',
        !r.err.includes(c.named) ? `${c.named} not named` : '',
        /\n\s+at .+:\d+:\d+\)?\n/.test(r.err) ? 'a stack trace' : '',
        JSON.stringify(after) !== JSON.stringify(before) ? `created ${after.filter((p) => !before.includes(p)).join(', ')}` : '',
      ].filter(Boolean);
      if (problems.length) bad.push(`${c.title}: ${problems.join('; ')}\n    ${r.err.split('\n')[0]}`);
    }
    process.stderr.write(`      (${all.length} cases in ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
    assert.deepEqual(bad, [], `${bad.length} of ${all.length} cases:\n${bad.join('\n')}`);
  });
});
