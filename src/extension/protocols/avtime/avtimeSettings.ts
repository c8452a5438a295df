// Reads `fpsweep.avtime.*` from VS Code; the schema, the folders and the CLI arguments are in avtimeSettingsModel.ts.
import * as vscode from 'vscode';
import { avtimeSettingsSchema, resolveIn, type AvtimeFolders, type AvtimeSettings } from './avtimeSettingsModel';

const KEYS = Object.keys(avtimeSettingsSchema.shape) as (keyof AvtimeSettings)[];

/** Reads `fpsweep.avtime.*`; a bad value is named with its setting, never silently replaced. */
export function readAvtimeSettings(): AvtimeSettings {
  const cfg = vscode.workspace.getConfiguration('fpsweep.avtime');
  const raw: Record<string, unknown> = {};
  for (const k of KEYS) {
    const v = cfg.get(k);
    if (v !== undefined) raw[k] = v;
  }
  const parsed = avtimeSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`setting fpsweep.avtime.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export function workspaceFolder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** The bench root and outputs folder of the settings, under the first workspace folder. */
export function avtimeFolders(s: AvtimeSettings): AvtimeFolders {
  const folder = workspaceFolder();
  const benchRoot = resolveIn(folder, s.benchRoot);
  const outputsDir = resolveIn(folder, s.outputRoot);
  if (!benchRoot || !outputsDir) throw new Error('set fpsweep.avtime.benchRoot and fpsweep.avtime.outputRoot (absolute, or open a workspace folder)');
  return { benchRoot, outputsDir };
}

/** Where the tree looks for runs: every workspace folder's outputs/avtime-bench, and the configured folder. */
export function avtimeRunFolders(): string[] {
  const dirs = (vscode.workspace.workspaceFolders ?? []).map((f) => resolveIn(f.uri.fsPath, 'outputs/avtime-bench')!);
  try {
    const s = readAvtimeSettings();
    const configured = resolveIn(workspaceFolder(), s.outputRoot);
    if (configured) dirs.push(configured);
  } catch {
    // A bad setting is said when a command uses it; the tree still shows the default folder.
  }
  return [...new Set(dirs)];
}
