// "fpsweep: Show effective settings": every `fpsweep.*` setting as the extension reads it now (getConfiguration),
// one per line in a read-only document. For a user asking which bench root or package a command will use, and
// for the e2e, which waits until what it wrote to settings.json is what the extension reads (never for time).
import * as vscode from 'vscode';

export const SETTINGS_SCHEME = 'fpsweep-settings';

/** The key that says when the document was read: each "Show effective settings" makes a new one, so a reader (the
 * e2e) can tell its own document from the one a previous call left open. */
export const READ_AT_KEY = '(read at)';

/** The effective settings of `keys` (the manifest's configuration keys) as JSON, one key a line, sorted, after the
 * time they were read. */
export function effectiveSettingsText(keys: readonly string[], readAt: Date): string {
  const cfg = vscode.workspace.getConfiguration();
  const lines = [...keys].sort().map((k) => `${JSON.stringify(k)}: ${JSON.stringify(cfg.get(k) ?? null)}`);
  return `{\n${[`${JSON.stringify(READ_AT_KEY)}: ${JSON.stringify(readAt.toISOString())}`, ...lines].join(',\n')}\n}\n`;
}
