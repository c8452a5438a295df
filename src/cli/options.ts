// Flags shared by several verbs, with the seed's environment knobs as their defaults.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors';
import { parseShard, type ShardSpec } from '../core/protocols/fp/shard/shard';
import { isAutoShard, resolveAutoShard, type Env } from '../core/protocols/fp/shard/autoShard';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export const packageOption: OptionSpec = {
  package: { type: 'string', short: 'p' },
  help: { type: 'boolean', short: 'h' },
};

/** Parses a verb's flags; unknown flags are a usage error, never ignored. */
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
  if (values.help) {
    process.stdout.write(help + '\n');
    process.exit(0);
  }
  return values;
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
