// Reads `fpsweep.*` from VS Code and resolves the run package; the schema and the knob mapping
// live in settingsModel.ts.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { settingsSchema, type Settings } from './settingsModel';

export { knobEnv, runFlags, settingsSchema, type Settings } from './settingsModel';

const KEYS = Object.keys(settingsSchema.shape) as (keyof Settings)[];

export class SettingsError extends Error {}

/** Where the Hugging Face token is kept (SecretStorage), for `return --upload`. */
export const HF_TOKEN_SECRET = 'fpsweep.hfToken';

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
