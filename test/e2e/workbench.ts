// Driving the VS Code workbench in Chromium with playwright-core: the command palette, the fpsweep
// tree and status bar, and the webviews (nested iframes, reached through page.frames()).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// docs/DEVELOPERS.md; playwright adds its own --headless.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install -y chromium (scripts/e2e-setup.sh does)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** The quick pick went away before its row was clicked: something else took the focus (a webview loading). */
export class QuickPickClosedError extends Error {}

export class Workbench {
  private shot = 0;
  constructor(
    readonly page: Page,
    private readonly shotsDir: string,
  ) {}

  async open(url: string): Promise<void> {
    // The page's HTML can take over 30 s (playwright's default) on a loaded 2-core machine (seen: 3 times of 8 here).
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 90_000 });
    await this.waitReady();
  }

  async waitReady(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await this.page.locator('.statusbar').waitFor({ timeout: 60_000 });
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(this.shotsDir, { recursive: true });
    const file = path.join(this.shotsDir, `${String(++this.shot).padStart(2, '0')}-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /**
   * Runs a palette command by its full title ("fpsweep: Start pilot"). Retried for a while: right
   * after the window loads, the palette may not list an extension's commands yet.
   */
  async runCommand(title: string, timeoutMs = 90_000): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    const end = Date.now() + timeoutMs;
    let lastSeen = '';
    for (;;) {
      // Escape closes a palette left open. With none open and the walkthrough in front it would be "Welcome: Go Back"
      // (welcome.goBack, bound to Escape), which takes the walkthrough away: not pressed there.
      const walkthroughInFront = (await this.page.locator('.tabs-container .tab.active', { hasText: /^\s*(Welcome|Walkthrough\b)/ }).count()) > 0;
      if (!walkthroughInFront || (await input.isVisible())) await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      const opened = await input.waitFor({ state: 'visible', timeout: 5000 }).then(
        () => true,
        () => false,
      );
      // Something taking the focus (an editor a previous command opens) closes the palette: open it again.
      const filled =
        opened &&
        (await input.fill(`>${title}`, { timeout: 5000 }).then(
          () => true,
          () => false,
        ));
      if (opened && !filled) process.stderr.write(`[workbench] the palette closed before "${title}" was typed; opening it again\n`);
      if (filled) {
        const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        if (
          await row.waitFor({ timeout: 8000 }).then(
            () => true,
            () => false,
          )
        ) {
          // The exact title must be the one picked: refuse a near match.
          const label = (await row.getAttribute('aria-label')) ?? (await row.innerText());
          if (!label.includes(title)) throw new Error(`palette offered "${label}" for "${title}"`);
          // A webview drawing (a walkthrough step's SVG) can take the focus and close the palette between the row
          // being found and clicked: then the click finds it hidden, and the palette is opened again.
          const clicked = await row.click({ timeout: 5000 }).then(
            () => true,
            () => false,
          );
          if (clicked) return;
          process.stderr.write(`[workbench] the palette closed before "${title}" was clicked; opening it again\n`);
        }
        lastSeen = await this.page
          .locator('.quick-input-list')
          .innerText()
          .catch(() => '');
      }
      if (Date.now() > end) throw new Error(`the palette never offered "${title}"; it showed: ${lastSeen.replace(/\s+/g, ' ').slice(0, 300)}`);
      await this.page.waitForTimeout(2000);
    }
  }

  /** The aria-labels of the rows of the fpsweep progress tree (our TreeItems' accessibility labels). */
  async treeLabels(): Promise<string[]> {
    const pane = this.page.locator('.pane', { has: this.page.locator('.pane-header', { hasText: 'Progress' }) });
    return pane.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? r.textContent ?? ''));
  }

  /** The first progress tree row matching `re`, once there is one (bounded; the error names what the tree showed). */
  async treeRow(re: RegExp, timeoutMs = 60_000): Promise<string> {
    return this.until(
      `a progress tree row matching ${re}`,
      timeoutMs,
      async () => (await this.treeLabels()).find((l) => re.test(l)),
      async () => JSON.stringify(await this.treeLabels()),
    );
  }

  async statusBarText(): Promise<string> {
    const item = this.page.locator('.statusbar-item[id$="fpsweep.status"]');
    if ((await item.count()) === 0) return '';
    return (await item.first().getAttribute('aria-label')) ?? (await item.first().innerText());
  }

  /** Polls until `check` returns a value (not undefined) or the time is up; says what it last saw. */
  async until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>, seen: () => Promise<string>): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await check().catch(() => undefined);
      if (v !== undefined) return v;
      if (Date.now() > end)
        throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}; last seen: ${await seen().catch((e) => String(e))}`);
      await this.page.waitForTimeout(1000);
    }
  }

  /**
   * The `fpsweep.*` settings as the extension reads them now ("fpsweep: Show effective settings": its
   * getConfiguration, one key a line), read from the document it opens. The document stays open as a preview (the
   * next preview replaces it): closing it would hand the focus to a webview, where F1 does not reach the palette.
   * Each call's document says when it was read (READ_AT_KEY of src/extension/effectiveSettings.ts): the one a
   * previous call left open is never taken for this call's, and this call returns only once its own document is
   * shown, so that opening it cannot close the next palette.
   */
  async effectiveSettings(): Promise<Record<string, unknown>> {
    const READ_AT = '(read at)';
    const tab = this.page.locator('.tabs-container .tab.active', { hasText: 'fpsweep-settings.json' });
    const lines = this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
    const shown = async (): Promise<Record<string, unknown> | undefined> => {
      if ((await tab.count()) === 0) return undefined;
      // Monaco renders spaces as U+00A0; the document is whole JSON once every line is drawn.
      const t = (await lines.innerText()).replace(/\u00a0/g, ' ');
      try {
        return JSON.parse(t) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    };
    // A settings document left open is read whole first (it may still be drawing), so it is never taken for ours.
    const drawn = async () => this.until('the open settings document drawn', 15_000, shown, async () => lines.innerText());
    const before = (await tab.count()) === 0 ? undefined : (await drawn())[READ_AT];
    await this.runCommand('fpsweep: Show effective settings');
    return this.until(
      'the effective settings document this call opened',
      30_000,
      async () => {
        const doc = await shown();
        return doc && typeof doc[READ_AT] === 'string' && doc[READ_AT] !== before ? doc : undefined;
      },
      async () => `${await tab.count()} settings tab(s); ${await lines.innerText()}`,
    );
  }

  /** The innermost frame of a webview whose document has `selector` (VS Code nests two iframes). */
  async webviewFrame(selector: string, timeoutMs = 30_000): Promise<Frame> {
    return this.until(
      `a webview with ${selector}`,
      timeoutMs,
      async () => {
        for (const f of this.page.frames()) {
          if (f === this.page.mainFrame()) continue;
          // A string, so this Node-side file needs no DOM types; the selector is ours.
          const has = await f.evaluate<boolean>(`!!document.querySelector(${JSON.stringify(selector)})`).catch(() => false);
          if (has) return f;
        }
        return undefined;
      },
      async () =>
        this.page
          .frames()
          .map((f) => f.url())
          .join(', '),
    );
  }

  /**
   * Whether the workbench has stored a webview panel's state naming `needle`: any of its IndexedDB stores
   * (BrowserStorageService's ItemTable) holds a value naming the panel's view type and `needle` (the editor memento
   * with the webview's saved state). The workbench saves it about once a minute when idle: a reload before that loses
   * the panel, so a reload test waits for this first.
   */
  async webviewStateStored(viewType: string, needle: string): Promise<boolean> {
    return this.page.evaluate<boolean>(`(async () => {
      const wanted = ${JSON.stringify([viewType, needle])};
      for (const { name } of await indexedDB.databases()) {
        if (!name) continue;
        const found = await new Promise((resolve) => {
          const open = indexedDB.open(name);
          open.onerror = () => resolve(false);
          open.onsuccess = () => {
            const db = open.result;
            if (![...db.objectStoreNames].includes('ItemTable')) { db.close(); return resolve(false); }
            const all = db.transaction('ItemTable').objectStore('ItemTable').getAll();
            all.onerror = () => { db.close(); resolve(false); };
            all.onsuccess = () => {
              db.close();
              resolve(all.result.some((v) => typeof v === 'string' && wanted.every((w) => v.includes(w))));
            };
          };
        });
        if (found) return true;
      }
      return false;
    })()`);
  }

  /**
   * Picks the row of the open quick pick whose label is `label` exactly, where one label is the start of another
   * (v_1 and v_128_s224): a row's aria-label is its label, then ", " and its description and detail (VS Code's
   * quickInputList), while its text runs label and description together.
   */
  async pickQuickExactly(label: string, timeoutMs = 30_000): Promise<void> {
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    const full = await this.until(
      `a quick pick row labelled ${label}`,
      timeoutMs,
      async () => {
        const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
        return labels.find((l) => l === label || l.startsWith(`${label}, `) || l.startsWith(`${label} `));
      },
      async () => JSON.stringify(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))),
    );
    // The row by its whole label, found again when clicked: the list recycles its row elements (a quick pick that
    // follows another reuses them), so a position read a moment before can be another item's row by then.
    await rows
      .and(this.page.locator(`[aria-label=${JSON.stringify(full)}]`))
      .click({ timeout: 10_000 })
      .catch(async (e: unknown) => {
        if (!(await this.page.locator('.quick-input-widget').isVisible())) throw new QuickPickClosedError(`the quick pick closed before ${label} was clicked`);
        throw e;
      });
  }

  /**
   * Picks the first row of the open quick pick whose aria-label (its label, description and detail) has `label`, as
   * a keyboard user does: the input focused, the active row moved onto that row (Down), its aria-label read again,
   * then Enter. A click on a row found a moment before can land on a row element the list has recycled or hidden
   * since (the walkthrough's e2e waited 30 s on a "not visible" row that way); a closed quick pick is said at once
   * (QuickPickClosedError), never waited on.
   */
  async pickQuick(label: string, timeoutMs = 30_000): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    const labels = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
    const wanted = await this.until(
      `a quick pick row with "${label}"`,
      timeoutMs,
      async () => ((await widget.isVisible()) ? (await labels()).find((l) => l.includes(label)) : undefined),
      async () => `${(await widget.isVisible()) ? 'open' : 'closed'}: ${JSON.stringify(await labels())}`,
    );
    const active = widget.locator('.quick-input-list .monaco-list-row.focused');
    const closed = async () => {
      if (!(await widget.isVisible())) throw new QuickPickClosedError(`the quick pick closed before "${label}" was picked`);
    };
    // At most one Down per row (and one more): the active row walks the list once.
    for (let i = 0; i <= (await rows.count()) + 1; i++) {
      await closed();
      await widget.locator('.quick-input-box input').first().focus();
      const now = (await active.count()) ? await active.first().getAttribute('aria-label') : null;
      if (now === wanted) {
        // What the widget shows (its title, prompt and rows): a second question of the command changes it.
        const shown = () => widget.innerText().catch(() => '');
        const before = await shown();
        await this.page.keyboard.press('Enter');
        // Accepted: the quick pick closed, or shows the command's next question (another pick, an input box).
        await this.until(
          `the quick pick accepting "${label}"`,
          10_000,
          async () => (!(await widget.isVisible()) || (await shown()) !== before ? true : undefined),
          async () => `still open on the same rows, active row: ${await active.first().getAttribute('aria-label')}`,
        );
        return;
      }
      await this.page.keyboard.press('ArrowDown');
    }
    await closed();
    throw new Error(`the quick pick's active row never reached "${wanted}": ${JSON.stringify(await labels())}`);
  }

  /**
   * Types `value` into the open input box (e.g. a password prompt) and accepts it. `prompt`: text of the box meant
   * (its title or prompt), so that one box of several asked in a row is never typed into the one before it.
   */
  async fillInputBox(value: string, timeoutMs = 30_000, prompt?: string): Promise<void> {
    const widget = prompt ? this.page.locator('.quick-input-widget', { hasText: prompt }) : this.page.locator('.quick-input-widget');
    const input = widget.locator('input');
    await input.waitFor({ state: 'visible', timeout: timeoutMs });
    await input.fill(value);
    await this.page.keyboard.press('Enter');
  }

  /**
   * Runs `label` from the context menu of `row`. A click that lands while the menu is still animating in is lost (the
   * menu stays open with the item focused): until the menu has closed, the item is chosen again as a keyboard user
   * would, at most three times.
   */
  async contextMenuItem(row: Locator, label: string): Promise<void> {
    await row.click({ button: 'right' });
    const item = this.page.locator('.context-view .monaco-menu .action-item', { hasText: label }).first();
    await item.waitFor({ timeout: 20_000 });
    await item.locator('.action-menu-item').first().click();
    const closed = () =>
      item.waitFor({ state: 'hidden', timeout: 5000 }).then(
        () => true,
        () => false,
      );
    for (let i = 0; i < 3 && !(await closed()); i++) {
      await item.hover();
      await this.page.keyboard.press('Enter');
    }
    if (await item.isVisible()) throw new Error(`the context menu stayed open on "${label}"`);
  }

  /** Clicks `button` of the modal dialog (VS Code's own dialog in the browser). */
  async clickDialogButton(button: string, timeoutMs = 30_000): Promise<void> {
    const b = this.page.locator('.monaco-dialog-box .monaco-button', { hasText: button }).first();
    await b.waitFor({ timeout: timeoutMs });
    await b.click();
  }

  /** The text of the first notification toast matching `re`, waiting for it. */
  /** The text of every notification shown now (toasts and the notification centre's list). */
  async notificationsText(): Promise<string> {
    return (await this.page.locator('.notification-toast, .notifications-list-container .monaco-list-row').allInnerTexts()).join('\n');
  }

  async notification(re: RegExp, timeoutMs = 60_000): Promise<string> {
    return this.until(
      `a notification matching ${re}`,
      timeoutMs,
      async () => {
        const texts = await this.page.locator('.notification-toast, .notifications-list-container .monaco-list-row').allInnerTexts();
        return texts.find((t) => re.test(t));
      },
      async () => JSON.stringify(await this.page.locator('.notification-toast').allInnerTexts()),
    );
  }
}
