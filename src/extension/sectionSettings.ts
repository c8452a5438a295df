// A run type's own settings section (`fpsweep.<section>.*`) read through its zod schema, and a path setting resolved
// the way the user wrote it (absolute, or relative to the first workspace folder), checked as a folder. Shared by the
// run types' UIs.
import { statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { z } from 'zod';

/** Reads `fpsweep.<section>.*`; a bad value is named with its setting, never silently replaced. */
export function readSectionSettings<S extends z.AnyZodObject>(section: string, schema: S): z.infer<S> {
  const cfg = vscode.workspace.getConfiguration(`fpsweep.${section}`);
  const raw: Record<string, unknown> = {};
  for (const k of Object.keys(schema.shape)) {
    const v = cfg.get(k);
    if (v !== undefined) raw[k] = v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`setting fpsweep.${section}.${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data as z.infer<S>;
}

/** A path setting, absolute (relative to the first workspace folder), or undefined when empty or unresolvable. */
export function workspacePath(text: string): string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return path.isAbsolute(t) ? path.resolve(t) : folder ? path.resolve(folder, t) : undefined;
}

/** A folder the user named exists (an input box's check). */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The workspace folders and the given path settings: where a run type's tree looks for its roots. */
export function searchFolders(configured: () => (string | undefined)[]): string[] {
  const dirs = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  try {
    for (const d of configured()) if (d) dirs.push(d);
  } catch {
    // A bad setting is said when a command uses it; the tree still looks in the workspace folders.
  }
  return [...new Set(dirs)];
}
