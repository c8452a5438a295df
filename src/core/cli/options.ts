// The one flag layer every verb parses with (issue 41): its flags, each with the rule its value must follow and the
// seed's environment knob as its default; checked here, naming the flag, before the verb creates anything.
import { existsSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { InputError, UsageError } from '../errors';
import { ContainmentError } from '../containment/containmentError';
import { parseShard, type ShardSpec } from './shardSpec';
import { isAutoShard, resolveAutoShard, type Env } from './autoShard';

/**
 * What a string flag's value must be; the flag layer checks it, in the order the flags were typed, before the verb
 * does anything (so a bad value is exit 2 naming the flag, and nothing is created):
 *  - `int` / `number`: a number in [min, max] (a whole one for `int`); `--x -1` is read as the value -1, then checked;
 *  - `enum`: one of `values` (an unknown one is named with the values that exist);
 *  - `list`: "A,B" → ['A','B'] (each one of `values` when given);
 *  - `path`: resolved against the cwd once, here, to an absolute path (every later use, the containment module's
 *    included, sees only absolute paths), then checked: `dir` an existing folder, `file` an existing file,
 *    `out-file` a file to write (not a folder; `fresh`: absent or empty), `out-dir` a folder to write (not a file;
 *    `fresh`: absent or empty), `any` resolved only; `root` a further check of what the folder must be (a run
 *    package, a videos root, …), giving what was expected when it is not.
 * `env` is the seed's environment knob the flag falls back to (named second in the errors); `default` the value
 * without either.
 */
export type ValueRule =
  | { kind: 'int'; min: number; max?: number; env?: string; default?: number }
  | { kind: 'number'; min: number; max: number; env?: string; default?: number }
  | { kind: 'enum'; values: readonly string[]; env?: string; default?: string }
  | { kind: 'list'; values?: readonly string[]; env?: string }
  | { kind: 'path'; is: PathKind; fresh?: boolean; env?: string; default?: string; root?: RootCheck };

export type PathKind = 'dir' | 'file' | 'out-file' | 'out-dir' | 'any';
/** Null when `abs` (an existing folder) is the root the flag wants; else what it should be ("a run package (…)"). */
export type RootCheck = (abs: string) => string | null;

export type FlagSpec =
  | { type: 'boolean'; short?: string; multiple?: false }
  | { type: 'string'; short?: string; multiple?: boolean; value?: ValueRule; /** the value's word in the help (DIR, N, …) */ meta?: string };
export type OptionSpec = Record<string, FlagSpec>;
/** The values of the flags given, after the layer: paths absolute, numbers numbers, lists arrays, env and defaults applied. */
export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

/**
 * `--help` was asked for: thrown with the verb's help so that main.ts prints it and exits 0. Thrown, not
 * `process.exit`, so a caller in the same process (a test, the demo) keeps running and its cleanup still happens.
 */
export class HelpRequested extends Error {
  constructor(readonly help: string) {
    super('help requested');
    this.name = 'HelpRequested';
  }
}

export const packageOption: OptionSpec = {
  package: { type: 'string', short: 'p', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE' }, meta: 'DIR' },
  help: { type: 'boolean', short: 'h' },
};

const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * `--x -1` as `--x=-1`: Node's parseArgs takes a value that starts with '-' for a flag ("argument is ambiguous");
 * a number after a string flag is that flag's value, checked by its rule like any other.
 */
function joinNegativeValues(args: readonly string[], options: OptionSpec): string[] {
  const shorts = new Map(Object.entries(options).flatMap(([k, o]) => (o.short ? [[o.short, k] as const] : [])));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const name = a.startsWith('--') && !a.includes('=') ? a.slice(2) : /^-[^-]$/.test(a) ? shorts.get(a.slice(1)) : undefined;
    const next = args[i + 1];
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && next.startsWith('-') && NUMBER_TEXT.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** Node's parseArgs options: the flags' own config, without our rules. */
function nodeOptions(options: OptionSpec): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(options).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]),
  );
}

/** Where a value came from, as the errors name it: the flag first, its environment knob second. */
function source(flag: string, rule: { env?: string }, fromEnv: boolean): string {
  if (fromEnv) return `${rule.env} (the environment's value for --${flag})`;
  return `--${flag}${rule.env ? ` (or ${rule.env})` : ''}`;
}

function rangeText(min: number, max: number | undefined, whole: boolean): string {
  const what = whole ? 'a whole number' : 'a number';
  return max === undefined || max >= Number.MAX_SAFE_INTEGER ? `${what} ≥ ${min}` : `${what} from ${min} to ${max}`;
}

function checkNumber(flag: string, rule: { kind: 'int' | 'number'; min: number; max?: number; env?: string }, raw: string, fromEnv: boolean): number {
  const whole = rule.kind === 'int';
  const max = rule.max ?? (whole ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE);
  const n = raw.trim() === '' || !NUMBER_TEXT.test(raw.trim()) ? NaN : Number(raw);
  const ok = whole ? Number.isSafeInteger(n) : Number.isFinite(n);
  if (!ok || n < rule.min || n > max) throw new UsageError(`${source(flag, rule, fromEnv)} must be ${rangeText(rule.min, rule.max, whole)}, got '${raw}'`);
  return n;
}

function checkEnum(flag: string, rule: { values: readonly string[]; env?: string }, raw: string, fromEnv: boolean): string {
  if (!rule.values.includes(raw)) throw new UsageError(`${source(flag, rule, fromEnv)} must be one of ${rule.values.join(', ')}, got '${raw}'`);
  return raw;
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function statOf(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

function emptyEntry(p: string, st: Stats): boolean {
  return st.isDirectory() ? readdirSync(p).length === 0 : st.isFile() && st.size === 0;
}

/** A path's value (a flag's or a positional's, named `name`): absolute (resolved against the cwd here, once), of its rule's kind. */
export function checkPathValue(name: string, rule: Extract<ValueRule, { kind: 'path' }>, raw: string): string {
  return checkPath(name, rule, raw, false, /^[A-Z_]+$/.test(name) ? name : undefined);
}

/** A path flag's value: absolute (resolved against the cwd here, once), and of the kind its rule says. */
function checkPath(flag: string, rule: Extract<ValueRule, { kind: 'path' }>, raw: string, fromEnv: boolean, positional?: string): string {
  const who = positional ?? source(flag, rule, fromEnv);
  if (raw.trim() === '') throw new UsageError(`${who} needs a path, got ''`);
  const abs = path.resolve(raw);
  const st = statOf(abs);
  switch (rule.is) {
    case 'dir':
      if (!st) throw new InputError(`${who} ${raw}: no such folder (${abs})`);
      if (!st.isDirectory()) throw new InputError(`${who} ${raw}: not a folder (${abs})`);
      break;
    case 'file':
      if (!st) throw new InputError(`${who} ${raw}: no such file (${abs})`);
      if (!st.isFile()) throw new InputError(`${who} ${raw}: not a file (${abs})`);
      break;
    case 'out-file':
      if (st && !st.isFile()) throw new InputError(`${who} ${raw}: a file is wanted, and ${abs} is a folder`);
      if (st && rule.fresh && !emptyEntry(abs, st))
        throw new InputError(`${who} ${raw}: ${abs} already exists and is not empty: outputs are never overwritten; choose a new path`);
      break;
    case 'out-dir':
      if (st && !st.isDirectory()) throw new InputError(`${who} ${raw}: a folder is wanted, and ${abs} is a file`);
      if (st && rule.fresh && !emptyEntry(abs, st))
        throw new InputError(`${who} ${raw}: ${abs} already exists and is not empty: outputs are never overwritten; choose a new path`);
      break;
    case 'any':
      break;
  }
  if (rule.root && st?.isDirectory()) {
    const wanted = rule.root(abs);
    if (wanted !== null) throw new InputError(`${who} ${raw}: ${abs} is not ${wanted}`);
  }
  return abs;
}

/** One flag's value after its rule (flag, else its environment knob, else its default); undefined when none. */
function applyRule(flag: string, rule: ValueRule, given: string | string[] | undefined): FlagValues[string] {
  const fromEnv = given === undefined && rule.env !== undefined && (process.env[rule.env] ?? '') !== '';
  const raw = given ?? (fromEnv ? process.env[rule.env!] : undefined);
  if (raw === undefined)
    return rule.kind === 'list' ? undefined : rule.kind === 'path' && rule.default !== undefined ? path.resolve(rule.default) : rule.default;
  if (Array.isArray(raw)) return raw.map((r) => applyRule(flag, rule, r) as string);
  switch (rule.kind) {
    case 'int':
    case 'number':
      return checkNumber(flag, rule, raw, fromEnv);
    case 'enum':
      return checkEnum(flag, rule, raw, fromEnv);
    case 'list': {
      const items = splitList(raw);
      if (rule.values) for (const i of items) checkEnum(flag, { values: rule.values, env: rule.env }, i, fromEnv);
      return items.length ? items : undefined;
    }
    case 'path':
      return checkPath(flag, rule, raw, fromEnv);
  }
}

/** Every flag with a rule, in the order the user typed them, then those left to their environment knob. */
function applyRules(values: FlagValues, options: OptionSpec, order: readonly string[]): FlagValues {
  const out: FlagValues = { ...values };
  const names = [...new Set([...order.filter((n) => n in options), ...Object.keys(options)])];
  for (const name of names) {
    const o = options[name];
    if (o.type !== 'string' || !o.value) continue;
    // --package's knob is read by requirePackage, for the verbs that need a package (sample's --out may be it).
    if (name === 'package' && values.package === undefined) continue;
    out[name] = applyRule(name, o.value, values[name] as string | string[] | undefined);
  }
  return out;
}

function parseWith(args: string[], options: OptionSpec, allowPositionals: boolean, help: string): { values: FlagValues; positionals: string[] } {
  let parsed: { values: FlagValues; positionals: string[]; tokens?: { kind: string; name?: string }[] };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(args, options),
      options: nodeOptions(options),
      allowPositionals,
      strict: true,
      tokens: true,
    }) as typeof parsed;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if (parsed.values.help) throw new HelpRequested(help);
  const order = (parsed.tokens ?? []).flatMap((t) => (t.kind === 'option' && t.name ? [t.name] : []));
  return { values: applyRules(parsed.values, options, order), positionals: parsed.positionals };
}

/** Parses a verb's flags (and --package); unknown flags are a usage error, never ignored; --help throws HelpRequested. */
export function parseVerbArgs(args: string[], options: OptionSpec, help: string): FlagValues {
  return parseWith(args, { ...packageOption, ...options }, false, help).values;
}

/** Parses a command's own flags (no --package) and its positionals; as parseVerbArgs otherwise. */
export function parseCommandArgs(args: string[], options: OptionSpec, allowPositionals: boolean, help: string): { values: FlagValues; positionals: string[] } {
  return parseWith(args, { help: { type: 'boolean', short: 'h' }, ...options }, allowPositionals, help);
}

/** `schema`'s reading of the options the flags made, or a usage error naming each issue (`path: message`), then the help. */
export function parseOptionsOrUsage<S extends z.ZodTypeAny>(schema: S, help: string, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new UsageError(`${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n\n${help}`);
  return parsed.data;
}

/** A string flag the verb cannot go without: its value, or a usage error naming the flag, then the help. */
export function requiredFlag(values: Readonly<Record<string, unknown>>, name: string, help: string): string {
  const value = stringFlag(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required\n\n${help}`);
  return value;
}

/** The sample makers' one flag: `--out DIR`, a folder they make (absent or empty, as each verb's help says). */
export const sampleOutFlags = {
  out: { type: 'string', short: 'o', meta: 'DIR', value: { kind: 'path', is: 'out-dir' } },
} satisfies OptionSpec;

/** A sample maker's `--out DIR` (made absolute by the flag layer), or a usage error naming it, then the help. */
export function requiredOutDir(values: Readonly<Record<string, unknown>>, help: string): string {
  const out = stringFlag(values, 'out');
  if (out === undefined) throw new UsageError(`--out DIR is required\n\n${help}`);
  return refuseLinkedOutDir(out);
}

/** A folder a verb makes and fills (issue 42): refused when it is a link (to a folder outside, or dangling), before
 * anything is made, so nothing is written through it. */
export function refuseLinkedOutDir(out: string): string {
  if (lstatSync(out, { throwIfNoEntry: false })?.isSymbolicLink()) throw new ContainmentError(out, 'is a symbolic link');
  return out;
}

/** A string flag's value; undefined when it is absent or empty. */
export function stringFlag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A number flag's value after its rule (flag, knob or default); undefined when none. */
export function numberFlag(values: Readonly<Record<string, unknown>>, name: string): number | undefined {
  const value = values[name];
  return typeof value === 'number' ? value : undefined;
}

/** A list flag's items after its rule; undefined when none. */
export function listFlag(values: Readonly<Record<string, unknown>>, name: string): string[] | undefined {
  const value = values[name];
  return Array.isArray(value) ? (value as string[]) : undefined;
}

/** A folder that holds a Frames × Pixels run package's inputs (items/samples/) or its results: what `--package` of its verbs wants. */
export function fpPackageRoot(abs: string): string | null {
  return existsSync(path.join(abs, 'items', 'samples')) || existsSync(path.join(abs, 'results', 'conditions_results.csv'))
    ? null
    : 'a run package (no items/samples/ folder nor results/conditions_results.csv in it; make one with `fpsweep sample --out DIR`)';
}

/** The benchmarks a run package holds (items/samples/<B>.jsonl), sorted. */
export function packageBenchmarks(abs: string): string[] {
  try {
    return readdirSync(path.join(abs, 'items', 'samples'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length))
      .sort();
  } catch {
    return [];
  }
}

/** Each of `names` a benchmark of the package, else exit 2 naming the ones it has. */
export function checkBenchmarks(flag: string, abs: string, names: readonly string[] | undefined): void {
  const have = packageBenchmarks(abs);
  const unknown = (names ?? []).filter((n) => !have.includes(n));
  if (unknown.length) throw new InputError(`${flag}: no benchmark ${unknown.join(', ')} in the package ${abs} (its benchmarks: ${have.join(', ') || 'none'})`);
}

/** --package DIR (or FPSWEEP_PACKAGE): absolute, an existing folder, and `root`'s kind when given. */
export function requirePackage(values: Record<string, unknown>, help: string, root?: RootCheck): string {
  const given = stringFlag(values, 'package');
  const raw = given ?? process.env.FPSWEEP_PACKAGE;
  if (raw === undefined || raw === '') throw new UsageError(`--package DIR is required\n\n${help}`);
  return checkPath('package', { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root }, raw, given === undefined);
}

/** "A,B" → ['A','B']; the flag wins over the environment knob. */
export function listOption(flag: unknown, envName: string): string[] | undefined {
  if (Array.isArray(flag)) return flag.length ? (flag as string[]) : undefined;
  const raw = typeof flag === 'string' ? flag : process.env[envName];
  if (raw === undefined || raw.trim() === '') return undefined;
  return splitList(raw);
}

/** An environment knob (or a flag without a rule) as a whole number ≥ min; a number the flag layer checked passes. */
export function intOption(flag: unknown, envName: string, fallback: number | undefined, min = 1): number | undefined {
  if (typeof flag === 'number') return flag;
  const raw = typeof flag === 'string' ? flag : process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${envName} must be a whole number ≥ ${min}, got '${raw}'`);
  return n;
}

/** An environment knob (or a flag without a rule) as a number in [min, max]; a number the flag layer checked passes. */
export function numberOption(flag: unknown, envName: string, fallback: number, min: number, max: number): number {
  if (typeof flag === 'number') return flag;
  const raw = typeof flag === 'string' ? flag : process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`${envName} must be a number in [${min}, ${max}], got '${raw}'`);
  return n;
}

/** PILOT=1 in the environment or --pilot. */
export function pilotOption(flag: unknown): boolean {
  return flag === true || process.env.PILOT === '1';
}

/** --shard K/N (or auto, auto/N: from Slurm, a Kubernetes indexed Job, NODE_RANK/NNODES), else the SHARD knob; undefined = the whole package. */
export function shardOption(flag: unknown, env: Env = process.env): ShardSpec | undefined {
  const [text, what] = typeof flag === 'string' ? [flag, '--shard'] : [env.SHARD, 'SHARD'];
  if (text === undefined || (what === 'SHARD' && text.trim() === '')) return undefined;
  if (!isAutoShard(text)) return parseShard(text, what);
  const { index, count } = resolveAutoShard(text, env, what);
  return { index, count };
}
