// Flags shared by several verbs, with the seed's environment knobs as their defaults.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { UsageError } from '../errors';
import { parseShard, type ShardSpec } from './shardSpec';
import { isAutoShard, resolveAutoShard, type Env } from './autoShard';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

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
  package: { type: 'string', short: 'p' },
  help: { type: 'boolean', short: 'h' },
};

/** Parses a verb's flags; unknown flags are a usage error, never ignored; --help throws HelpRequested. */
export function parseVerbArgs<O extends OptionSpec>(args: string[], options: O, help: string) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, options: { ...packageOption, ...options }, allowPositionals: false, strict: true }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if (values.help) throw new HelpRequested(help);
  return values;
}

/** Parses a command's own flags (no --package); unknown flags are a usage error with the help; --help throws HelpRequested. */
export function parseCommandArgs<O extends OptionSpec, P extends boolean>(args: string[], options: O, allowPositionals: P, help: string) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: P; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if ((parsed.values as { help?: unknown }).help) throw new HelpRequested(help);
  return parsed;
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

/** A string flag's value; undefined when it is absent or empty. */
export function stringFlag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function requirePackage(values: Record<string, unknown>, help: string): string {
  const dir = values.package ?? process.env.FPSWEEP_PACKAGE;
  if (typeof dir !== 'string' || dir === '') throw new UsageError(`--package DIR is required\n\n${help}`);
  return dir;
}

/** "A,B" → ['A','B']; the flag wins over the environment knob. */
export function listOption(flag: unknown, envName: string): string[] | undefined {
  const raw = typeof flag === 'string' ? flag : process.env[envName];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function intOption(flag: unknown, envName: string, fallback: number | undefined, min = 1): number | undefined {
  const raw = typeof flag === 'string' ? flag : process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${envName} must be a whole number ≥ ${min}, got '${raw}'`);
  return n;
}

export function numberOption(flag: unknown, envName: string, fallback: number, min: number, max: number): number {
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
