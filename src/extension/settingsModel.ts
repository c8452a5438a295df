// The extension's settings as data (no vscode here, so tests run under plain mocha): the zod schema
// of `contributes.configuration` and the mapping to the seed's environment knobs (SPEC §8).
import { z } from 'zod';

const positiveInt = z.number().int().positive();

export const settingsSchema = z.object({
  packagePath: z.string().default(''),
  ngpu: positiveInt.nullable().default(null),
  workers: positiveInt.nullable().default(null),
  maxSeqs: positiveInt.nullable().default(null),
  gpuUtil: z.number().gt(0).lte(1).nullable().default(null),
  benchmarks: z.array(z.string().min(1)).default([]),
  conditions: z.array(z.string().min(1)).default([]),
  vllmBin: z.string().default(''),
  endpoints: z.array(z.string().url()).default([]),
  /** `fpsweep run --base-port N`: the launched servers listen on N, N+1, …; null = the CLI's default (8011). */
  basePort: z.number().int().min(1024).max(65_535).nullable().default(null),
  /** `--shard K/N` (SHARD): this host runs part K of N; empty = the whole package. */
  shard: z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
      z
        .string()
        .regex(/^\s*\d+\s*\/\s*\d+\s*$/, 'must be K/N, e.g. 1/2')
        .refine((v) => {
          const [k, n] = v.split('/').map(Number);
          return k >= 1 && k <= n;
        }, 'must be K/N with 1 ≤ K ≤ N')
        .nullable(),
    )
    .default(null),
  // Extra environment for the CLI and worker (e.g. the stand-in server's knobs). Never a token:
  // tokens live in SecretStorage only (DEVELOPERS.md, security by default).
  extraEnv: z
    .record(z.string())
    .refine((env) => !Object.keys(env).some((k) => /TOKEN|SECRET|KEY/i.test(k)), {
      message: 'holds a token-like variable; use "fpsweep: Set Hugging Face token" instead',
    })
    .default({}),
});
export type Settings = z.infer<typeof settingsSchema>;

/** Settings → the environment knobs of SPEC §8 (unset settings leave the CLI's own defaults). */
export function knobEnv(settings: Settings): Record<string, string> {
  const env: Record<string, string> = { ...settings.extraEnv };
  if (settings.ngpu !== null) env.NGPU = String(settings.ngpu);
  if (settings.workers !== null) env.WORKERS = String(settings.workers);
  if (settings.maxSeqs !== null) env.MAX_SEQS = String(settings.maxSeqs);
  if (settings.gpuUtil !== null) env.GPU_UTIL = String(settings.gpuUtil);
  if (settings.benchmarks.length) env.BENCH = settings.benchmarks.join(',');
  if (settings.conditions.length) env.CONDS = settings.conditions.join(',');
  if (settings.vllmBin.trim()) env.VLLM_BIN = settings.vllmBin.trim();
  if (settings.shard !== null) env.SHARD = settings.shard.trim();
  return env;
}

/**
 * The flags the settings add to a `fpsweep run` started from VS Code (Start pilot/full run, a runbook's run step):
 * `--base-port` when set, unless the run already names its port or uses running servers (`--endpoints`).
 */
export function runFlags(settings: Settings, given: readonly string[]): string[] {
  if (settings.basePort === null || given.includes('--base-port') || given.includes('--endpoints')) return [];
  return ['--base-port', String(settings.basePort)];
}
