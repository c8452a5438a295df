// "fpsweep: Show effective settings": every `fpsweep.*` setting as the extension reads it now (getConfiguration),
// one per line in a read-only document. For a user asking which bench root or package a command will use, and
// for the e2e, which waits until what it wrote to settings.json is what the extension reads (never for time).
import * as vscode from 'vscode';

export const SETTINGS_SCHEME = 'fpsweep-settings';

/** The effective `fpsweep.*` settings as JSON, one key a line (sorted): `{"fpsweep.x": value, …}`. */
export function effectiveSettingsText(): string {
  const cfg = vscode.workspace.getConfiguration();
  const keys = Object.keys((vscode.extensions.getExtension('fpsweep.fpsweep')?.packageJSON?.contributes?.configuration?.properties ?? {}) as object);
  const found = keys.length ? keys : settingKeysOf(cfg.get('fpsweep'));
  const lines = found.sort().map((k) => `${JSON.stringify(k)}: ${JSON.stringify(cfg.get(k) ?? null)}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

/** The keys under a configuration section (its nested objects flattened to dotted keys). */
function settingKeysOf(section: unknown, prefix = 'fpsweep'): string[] {
  if (!section || typeof section !== 'object') return [];
  return Object.entries(section as Record<string, unknown>).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v) && !k.includes('.') && k !== 'extraEnv' ? settingKeysOf(v, `${prefix}.${k}`) : [`${prefix}.${k}`],
  );
}
