// Screenshots of a webview in the light, dark and high-contrast themes (issue 36 point 5). The theme is switched the
// way a user's settings switch it: `workbench.colorTheme` written to the user settings.json that code-server watches;
// each shot waits for the state that causes — the webview's body carrying the theme's class (VS Code sets
// vscode-light / vscode-dark / vscode-high-contrast) — never for time. Shots go to the script's test-output dir;
// only `npm run screenshots` (FPSWEEP_SCREENSHOTS_DIR=docs/screenshots) copies them into the tree.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { REPO, type CodeServerDirs } from './codeServer';
import type { Workbench } from './workbench';

/** Each theme, the class a webview's body wears in it, and the class of the workbench's own root. */
export const THEMES = [
  { key: 'light', id: 'Default Light Modern', bodyClass: 'vscode-light', workbenchClass: 'vs' },
  { key: 'dark', id: 'Default Dark Modern', bodyClass: 'vscode-dark', workbenchClass: 'vs-dark' },
  { key: 'hc', id: 'Default High Contrast', bodyClass: 'vscode-high-contrast', workbenchClass: 'hc-black' },
] as const;
export type ThemeKey = (typeof THEMES)[number]['key'];

/** Where `npm run screenshots` wants the docs' screenshots (absolute), or null in a test run. */
export function docsScreenshotsDir(): string | null {
  const dir = process.env.FPSWEEP_SCREENSHOTS_DIR;
  return dir ? path.resolve(REPO, dir) : null;
}

/** Writes the theme into the user settings (kept otherwise) and waits until the page wears it: `frame`'s body (a
 * webview), else the workbench's root. */
export async function applyTheme(dirs: CodeServerDirs, wb: Workbench, frame: Frame | null, theme: (typeof THEMES)[number]): Promise<void> {
  const file = path.join(dirs.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, JSON.stringify({ ...settings, 'workbench.colorTheme': theme.id }, null, 2));
  const where = frame ?? wb.page.mainFrame();
  const node = frame ? 'document.body' : "document.querySelector('.monaco-workbench')";
  const cls = frame ? theme.bodyClass : theme.workbenchClass;
  await wb.until(
    `the ${frame ? 'webview' : 'workbench'} in the ${theme.key} theme (.${cls})`,
    30_000,
    async () => ((await where.evaluate<boolean>(`!!${node}?.classList.contains(${JSON.stringify(cls)})`)) ? true : undefined),
    async () => where.evaluate<string>(`${node}?.className ?? ''`),
  );
}

/**
 * `name`-light/dark/hc.png of the page in each theme (into the script's shots, and into docs/screenshots/ when
 * `npm run screenshots` asks); `check` runs in each theme before its shot (a readability check of the script's own).
 * Ends in the dark theme, code-server's default, as the scripts found it.
 */
export async function themeShots(
  dirs: CodeServerDirs,
  wb: Workbench,
  frame: Frame | null,
  name: string,
  check?: (theme: ThemeKey) => Promise<void>,
): Promise<string[]> {
  const docs = docsScreenshotsDir();
  const written: string[] = [];
  for (const theme of [...THEMES.filter((t) => t.key !== 'dark'), THEMES[1]]) {
    await applyTheme(dirs, wb, frame, theme);
    await check?.(theme.key);
    const shot = await wb.screenshot(`${name}-${theme.key}`);
    written.push(shot);
    if (docs) {
      fs.mkdirSync(docs, { recursive: true });
      fs.copyFileSync(shot, path.join(docs, `${name}-${theme.key}.png`));
    }
  }
  return written;
}
