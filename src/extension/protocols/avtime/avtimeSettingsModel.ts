// The `fpsweep.avtime.*` settings as data (no vscode: tested under plain mocha), the folders they resolve to,
// and the `fpsweep avtime …` arguments a run started from VS Code gets. The FP settings' extraEnv and vllmBin
// (VLLM_BIN) apply to AVTime runs as well: one launcher, one stand-in.
import * as path from 'node:path';
import { z } from 'zod';

export const avtimeSettingsSchema = z.object({
  benchRoot: z.string().default('data/AVTime-Bench'),
  outputRoot: z.string().default('outputs/avtime-bench'),
  targetModel: z.string().default(''),
  judgeModel: z.string().default(''),
  targetGpus: z.string().default(''),
  targetTp: z.number().int().positive().nullable().default(null),
  judgeGpus: z.string().default(''),
  judgeTp: z.number().int().positive().nullable().default(null),
  targetEndpoints: z.array(z.string().url()).default([]),
  judgeEndpoint: z.string().default(''),
  // `--target-base-port` / `--judge-base-port`: where the launched servers listen; null = the CLI's 8011 / 8031.
  targetBasePort: z.number().int().min(1024).max(65_535).nullable().default(null),
  judgeBasePort: z.number().int().min(1024).max(65_535).nullable().default(null),
  // The Data runbook's paths (data/dataRunbook.ts), as written into its steps.
  dataSource: z.string().default('data/AVTime-50K/avtime_50k.jsonl'),
  dataVideos: z.string().default('data/AVTime-50K/videos'),
  dataOutputRoot: z.string().default('outputs/avtime-data'),
  captionBaseUrl: z.string().default('http://127.0.0.1:8000/v1'),
});
export type AvtimeSettings = z.infer<typeof avtimeSettingsSchema>;

/** A setting's folder: absolute as given, else under the workspace folder (none without one). */
export function resolveIn(folder: string | undefined, p: string): string | undefined {
  const t = p.trim();
  if (!t) return undefined;
  if (path.isAbsolute(t)) return path.resolve(t);
  return folder ? path.resolve(folder, t) : undefined;
}

const PLAIN = /^[A-Za-z0-9._-]+$/;

export function isPlainRunId(id: string): boolean {
  return PLAIN.test(id) && id !== '.' && id !== '..';
}

/** A fresh run id: avtime-YYYYMMDD-HHMMSS (UTC). */
export function newRunId(now = new Date()): string {
  const iso = now.toISOString();
  return `avtime-${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/** The flags the settings add (models, GPU groups, TP, endpoints, ports); a flag the user already wrote is kept as written. */
export function settingsFlags(s: AvtimeSettings, given: readonly string[] = []): string[] {
  const out: string[] = [];
  const add = (flag: string, value: string | null) => {
    if (value === null || value === '' || given.includes(flag)) return;
    out.push(flag, value);
  };
  add('--target-model', s.targetModel.trim());
  add('--judge-model', s.judgeModel.trim());
  add('--target-gpus', s.targetGpus.trim());
  add('--target-tp', s.targetTp === null ? null : String(s.targetTp));
  add('--judge-gpus', s.judgeGpus.trim());
  add('--judge-tp', s.judgeTp === null ? null : String(s.judgeTp));
  add('--target-endpoints', s.targetEndpoints.join(','));
  add('--judge-endpoint', s.judgeEndpoint.trim());
  add('--target-base-port', s.targetBasePort === null ? null : String(s.targetBasePort));
  add('--judge-base-port', s.judgeBasePort === null ? null : String(s.judgeBasePort));
  return out;
}

export interface AvtimeFolders {
  benchRoot: string;
  /** The folder holding runs: each run at <outputsDir>/<RUN_ID>/. */
  outputsDir: string;
}

/**
 * `avtime <stage> …` as VS Code runs it: the configured bench root, and for `run` a run id and its output root
 * under the configured outputs folder (unless the user named them), then the settings' flags. `sample` runs as written.
 */
export function avtimeCliArgs(
  stageArgs: readonly string[],
  s: AvtimeSettings,
  dirs: AvtimeFolders,
  runId: () => string,
): { args: string[]; outputRoot: string | null } {
  const [stage, ...rest] = stageArgs;
  if (stage === 'sample') return { args: [...stageArgs], outputRoot: null };
  const args = [stage, ...rest];
  if (!rest.includes('--bench-root')) args.push('--bench-root', dirs.benchRoot);
  let outputRoot: string | null = null;
  const at = rest.indexOf('--output-root');
  if (at >= 0) outputRoot = rest[at + 1] ?? null;
  else if (stage !== 'inputs') {
    const given = rest.indexOf('--run-id');
    const id = given >= 0 ? (rest[given + 1] ?? '') : runId();
    if (!isPlainRunId(id)) throw new Error(`run id '${id}' is not a plain name (letters, digits, '.', '_', '-')`);
    if (given < 0) args.push('--run-id', id);
    outputRoot = path.join(dirs.outputsDir, id);
    args.push('--output-root', outputRoot);
  }
  if (stage === 'run' || stage === 'infer' || stage === 'judge') args.push(...settingsFlags(s, rest));
  return { args, outputRoot };
}
