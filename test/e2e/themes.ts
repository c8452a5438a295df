// Screenshots of a webview in the light, dark and high-contrast themes (issue 36 point 5). The theme is switched the
// way a user switches it: "Preferences: Color Theme" and the theme's row; each shot waits for the state that causes —
// the webview's body carrying the theme's class (VS Code sets vscode-light / vscode-dark / vscode-high-contrast) or
// the workbench's root its own — never for time. Shots go to the script's test-output dir;
// only `npm run screenshots` (FPSWEEP_SCREENSHOTS_DIR=docs/screenshots) copies them into the tree.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { auditWebview } from './a11y';
import { REPO } from './codeServer';
import type { Workbench } from './workbench';

/** Each theme, the class a webview's body wears in it, and the class of the workbench's own root. */
export const THEMES = [
  { key: 'light', label: 'Light Modern', bodyClass: 'vscode-light', workbenchClass: 'vs' },
  { key: 'dark', label: 'Dark Modern', bodyClass: 'vscode-dark', workbenchClass: 'vs-dark' },
  { key: 'hc', label: 'Dark High Contrast', bodyClass: 'vscode-high-contrast', workbenchClass: 'hc-black' },
] as const;
export type ThemeKey = (typeof THEMES)[number]['key'];

/** Where `npm run screenshots` wants the docs' screenshots (absolute), or null in a test run. */
export function docsScreenshotsDir(): string | null {
  const dir = process.env.FPSWEEP_SCREENSHOTS_DIR;
  return dir ? path.resolve(REPO, dir) : null;
}

/** Picks the theme in "Preferences: Color Theme" and waits until the page wears it: `frame`'s body (a webview), else
 * the workbench's root. */
export async function applyTheme(wb: Workbench, frame: Frame | null, theme: (typeof THEMES)[number]): Promise<void> {
  await wb.runCommand('Preferences: Color Theme');
  // The row's label exactly (a group's first row carries its separator's words too).
  const row = wb.page.locator('.quick-input-widget .quick-input-list').getByText(theme.label, { exact: true }).first();
  await row.waitFor({ timeout: 30_000 });
  await row.click();
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
 * Waits until the workbench is quiet for a shot: no "Activating Extensions…" in the status bar (VS Code shows it while
 * any extension activates, a theme switch included: the committed high-contrast shots were taken under it) and no
 * notification toast over the page (a toast left from an earlier step covers the panel's corner).
 */
export async function quietForShot(wb: Workbench): Promise<void> {
  const toasts = wb.page.locator('.notifications-toasts .notification-toast');
  if ((await toasts.count()) > 0) {
    await wb.runCommand('Notifications: Clear All Notifications');
  }
  await wb.until(
    'activation over and no notification toast (for the shot)',
    90_000,
    async () => {
      const bar = await wb.page.locator('.part.statusbar').innerText();
      return !/Activating Extensions/i.test(bar) && (await toasts.count()) === 0 ? true : undefined;
    },
    async () => `status bar: ${(await wb.page.locator('.part.statusbar').innerText()).replace(/\s+/g, ' ')}; ${await toasts.count()} toast(s)`,
  );
}

export interface ThemeShotsOptions {
  /** A readability check of the script's own, run in each theme before its shot. */
  check?: (theme: ThemeKey) => Promise<void>;
  /** The state the shot is about, made and checked last, after the audit's resizes (e.g. a chart scrolled wholly into
   * view): it throws when the page does not show it. */
  ready?: (theme: ThemeKey) => Promise<void>;
  log?: (line: string) => void;
  /** Whether `npm run screenshots` copies these shots into docs/screenshots/ (default true). */
  docs?: boolean;
}

/**
 * `name`-light/dark/hc.png of the page in each theme (into the script's shots, and into docs/screenshots/ when
 * `npm run screenshots` asks); `check` runs in each theme before its shot, and a webview (`frame`) is audited in each
 * theme before its shot too (a11y.ts: axe's serious and critical violations, and overflow at 1280×800 and 800×600):
 * no shot is taken of a page that fails it. Ends in the dark theme, code-server's default, as the scripts found it.
 */
export async function themeShots(wb: Workbench, frame: Frame | null, name: string, opts: ThemeShotsOptions = {}): Promise<string[]> {
  const docs = opts.docs === false ? null : docsScreenshotsDir();
  const written: string[] = [];
  for (const theme of [...THEMES.filter((t) => t.key !== 'dark'), THEMES[1]]) {
    await applyTheme(wb, frame, theme);
    await opts.check?.(theme.key);
    if (frame) opts.log?.(await auditWebview(wb.page, frame, `${name} (${theme.key})`));
    await quietForShot(wb);
    await opts.ready?.(theme.key);
    // No pointer over the page: a tooltip or a hover highlight is not what the shot is about.
    await wb.page.mouse.move(0, 0);
    const shot = await wb.screenshot(`${name}-${theme.key}`);
    written.push(shot);
    if (docs) {
      fs.mkdirSync(docs, { recursive: true });
      fs.copyFileSync(shot, path.join(docs, `${name}-${theme.key}.png`));
    }
  }
  return written;
}
