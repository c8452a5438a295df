// Reads `fpsweep.caption.*` from VS Code; the schema and the CLI arguments are in captionSettingsModel.ts.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { captionSettingsSchema, type CaptionSettings } from './captionSettingsModel';

const KEYS = Object.keys(captionSettingsSchema.shape) as (keyof CaptionSettings)[];

/** Reads `fpsweep.caption.*`; a bad value is named with its setting, never silently replaced. */
export function readCaptionSettings(): CaptionSettings {
  const cfg = vscode.workspace.getConfiguration('fpsweep.caption');
  const raw: Record<string, unknown> = {};
  for (const k of KEYS) {
    const v = cfg.get(k);
    if (v !== undefined) raw[k] = v;
  }
  const parsed = captionSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`setting fpsweep.caption.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** The configured videos root, absolute (relative to the first workspace folder), or undefined. */
export function configuredVideosRoot(s: CaptionSettings): string | undefined {
  const t = s.videosRoot.trim();
  if (!t) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return path.isAbsolute(t) ? path.resolve(t) : folder ? path.resolve(folder, t) : undefined;
}

/** Where the tree looks for videos roots: the configured one and every workspace folder. */
export function captionSearchFolders(): string[] {
  const dirs = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  try {
    const configured = configuredVideosRoot(readCaptionSettings());
    if (configured) dirs.push(configured);
  } catch {
    // A bad setting is said when a command uses it; the tree still looks in the workspace folders.
  }
  return [...new Set(dirs)];
}
