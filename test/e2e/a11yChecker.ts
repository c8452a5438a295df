// A test of the accessibility, layout and keyboard checks themselves (test/e2e/a11y.ts and keyboard.ts, issue 44): a
// page under a webview's strict CSP (no inline style, no eval; scripts by nonce only) with a card, a table, a button
// and a link, in a theme's colors, passes; the same page with a planted low-contrast style fails on axe's
// color-contrast, with a planted overflow (a row wider than its card) fails on the overflow check at both viewports,
// with a planted clickable row that has no tab stop fails the keyboard check as unreachable, and with a button whose
// focus draws nothing fails it as focus-invisible. A check that cannot fail would pass every panel: this proves it does
// not. Chromium only (no code-server): a few seconds.
// Run: `tsx test/e2e/a11yChecker.ts`; `npm run test:e2e` runs it first.
import type { Browser, Page } from 'playwright-core';
import { auditWebview, axeFindings, overflowFindings, type Finding } from './a11y';
import { E2eScript } from './harness';
import { keyboardAudit, keyboardFindings } from './keyboard';
import { launchBrowser } from './workbench';

const script = new E2eScript('e2e-a11y-checker', () => undefined);
const check = (name: string, fn: () => Promise<void>) => script.check(name, fn);

/** A page as our webviews are: the CSP of webviewCsp.ts (styles and scripts by nonce), theme colors, a card. */
const PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-n1'; script-src 'nonce-n1';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>fpsweep: checker</title>
<style nonce="n1">
  body { color: #cccccc; background: #1f1f1f; font: 13px sans-serif; margin: 0; padding: 0 16px; }
  .card { border: 1px solid #444; padding: 8px; max-width: 100%; box-sizing: border-box; }
  .scroll { overflow-x: auto; }
  a { color: #3794ff; }
</style></head>
<body><main id="app"><h1>Report</h1>
<section class="card" id="card"><h2>A card</h2><p id="words">Rows read: 231, retained 201.</p>
<div class="scroll" tabindex="0" role="region" aria-label="wide table"><table><caption>wide but scrolled</caption>
<tr><th scope="col">a</th></tr><tr><td id="wide">x</td></tr></table></div>
<p><button type="button" id="show">Show item</button> <a href="#card" id="link">the card</a></p>
</section></main></body></html>`;

/** Webview code, run as a DevTools evaluation (not a page script: the CSP allows none): style properties set through
 * the CSSOM, as our panels set positions. */
const PLANT_LOW_CONTRAST = `(() => {
  const p = document.getElementById('words');
  p.style.color = '#2a2a2a';
  p.style.background = '#1f1f1f';
})()`;
const PLANT_OVERFLOW = `(() => {
  const d = document.createElement('div');
  d.id = 'planted';
  d.textContent = 'a row too wide';
  d.style.width = '3000px';
  document.getElementById('card').appendChild(d);
})()`;
const WIDE_BUT_SCROLLED = `(() => {
  const cell = document.getElementById('wide');
  cell.style.width = '3000px';
  cell.style.display = 'block';
})()`;

/** A row a click opens, with no tab stop (no tabindex, not a link or a button): a mouse-only row. */
const PLANT_CLICK_ROW = `(() => {
  const d = document.createElement('div');
  d.id = 'planted-row';
  d.textContent = 'a row that opens on a click';
  d.style.cursor = 'pointer';
  d.addEventListener('click', () => d.classList.toggle('open'));
  document.getElementById('card').appendChild(d);
})()`;
/** The button's focus ring taken away (an inline style wins over the browser's :focus-visible ring). */
const PLANT_NO_FOCUS_MARK = `document.getElementById('show').style.outline = 'none'`;

const rules = (fs: Finding[]) => fs.map((f) => `${f.kind}:${f.rule}`);

async function main(): Promise<void> {
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const fresh = async () => {
      await page.setContent(PAGE);
      await page.setViewportSize({ width: 1280, height: 800 });
    };

    await check('the clean page passes: no serious axe violation, no overflow (a table wider than its box inside a scroller is fine)', async () => {
      await fresh();
      await page.evaluate(WIDE_BUT_SCROLLED);
      script.log(await auditWebview(page, page.mainFrame(), 'clean page'));
    });

    await check('a planted low-contrast style fails on color-contrast', async () => {
      await fresh();
      await page.evaluate(PLANT_LOW_CONTRAST);
      const found = rules(await axeFindings(page.mainFrame()));
      if (!found.includes('axe:color-contrast')) throw new Error(`axe did not flag the planted low contrast: ${JSON.stringify(found)}`);
      const thrown = await auditWebview(page, page.mainFrame(), 'planted contrast').then(
        () => null,
        (e: Error) => e.message,
      );
      if (!thrown?.includes('color-contrast')) throw new Error(`auditWebview passed the planted low contrast: ${thrown}`);
      script.log(thrown.split('\n').slice(0, 2).join(' | '));
    });

    await check('a planted overflow (a row wider than its card) fails the overflow check, at both viewports', async () => {
      await fresh();
      await page.evaluate(PLANT_OVERFLOW);
      const found = await overflowFindings(page.mainFrame());
      if (!found.some((f) => f.rule === 'overflow' && f.where[0]?.includes('section#card.card')))
        throw new Error(`no overflow of the card: ${JSON.stringify(found)}`);
      const thrown = await auditWebview(page, page.mainFrame(), 'planted overflow').then(
        () => null,
        (e: Error) => e.message,
      );
      if (!thrown || !/1280×800: .*\n[\s\S]*800×600: /.test(thrown)) throw new Error(`auditWebview did not fail the planted overflow at both sizes: ${thrown}`);
      script.log(thrown.split('\n').slice(0, 3).join(' | '));
    });

    await check('the keyboard check passes the clean page: Tab reaches the scroller, the button and the link, each drawn focused', async () => {
      await fresh();
      // The walk starts at the page's top even when the focus was on its last control.
      await page.focus('#link');
      script.log(await keyboardAudit(page, page.mainFrame(), 'clean page'));
    });

    await check('a planted clickable row with no tab stop fails the keyboard check (unreachable)', async () => {
      await fresh();
      await page.evaluate(PLANT_CLICK_ROW);
      const { findings } = await keyboardFindings(page, page.mainFrame());
      if (!findings.some((f) => f.rule === 'unreachable' && f.what.includes('div#planted-row')))
        throw new Error(`the keyboard check did not flag the planted row: ${JSON.stringify(findings)}`);
      const thrown = await keyboardAudit(page, page.mainFrame(), 'planted row').then(
        () => null,
        (e: Error) => e.message,
      );
      if (!thrown?.includes('unreachable')) throw new Error(`keyboardAudit passed the planted row: ${thrown}`);
      script.log(thrown.split('\n').slice(0, 2).join(' | '));
    });

    await check('a planted button whose focus draws nothing fails the keyboard check (focus-invisible)', async () => {
      await fresh();
      await page.evaluate(PLANT_NO_FOCUS_MARK);
      const { findings } = await keyboardFindings(page, page.mainFrame());
      if (!findings.some((f) => f.rule === 'focus-invisible' && f.what.includes('button#show')))
        throw new Error(`the keyboard check did not flag the unmarked focus: ${JSON.stringify(findings)}`);
      script.log(findings.map((f) => `${f.rule}: ${f.what}`).join(' | '));
    });
  } catch (err) {
    await script.failed(err);
  } finally {
    await browser?.close().catch(() => undefined);
  }
}

script.run(main, Number(process.env.E2E_TIMEOUT_S ?? 120));
