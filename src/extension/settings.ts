// The extension's settings (package.json `contributes.configuration`), validated with zod and mapped to
// the seed's environment knobs that the CLI and the worker read as flag defaults (SPEC §8).
import * as path from 'node:path';
import * as vscode from 'vscode';
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

const KEYS = Object.keys(settingsSchema.shape) as (keyof Settings)[];

export class SettingsError extends Error {}

/** Reads `fpsweep.*`; a bad value is named with its setting, never silently replaced. */
export function readSettings(): Settings {
  const cfg = vscode.workspace.getConfiguration('fpsweep');
  const raw: Record<string, unknown> = {};
  for (const k of KEYS) {
    const v = cfg.get(k);
    if (v !== undefined) raw[k] = v;
  }
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SettingsError(`setting fpsweep.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** The run package: the setting (absolute, or relative to the first workspace folder), else that folder. */
export function resolvePackageDir(settings: Settings): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const p = settings.packagePath.trim();
  if (p) return path.isAbsolute(p) ? p : folder ? path.resolve(folder, p) : undefined;
  return folder;
}

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
  return env;
}
