// A test of the accessibility and layout check itself (test/e2e/a11y.ts, issue 44): a page under a webview's strict
// CSP (no inline style, no eval; scripts by nonce only) with a card and a table, in a theme's colors, passes; the same
// page with a planted low-contrast style fails on axe's color-contrast, and with a planted overflow (a row wider than
// its card) fails on the overflow check, at both viewports. A check that cannot fail would pass every panel: this
// proves it does not. Chromium only (no code-server): a few seconds.
// Run: `tsx test/e2e/a11yChecker.ts`; `npm run test:e2e` runs it first.
import type { Browser, Page } from 'playwright-core';
import { auditWebview, axeFindings, overflowFindings, type Finding } from './a11y';
import { E2eScript } from './harness';
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
</style></head>
<body><main id="app"><h1>Report</h1>
<section class="card" id="card"><h2>A card</h2><p id="words">Rows read: 231, retained 201.</p>
<div class="scroll" tabindex="0" role="region" aria-label="wide table"><table><caption>wide but scrolled</caption>
<tr><th scope="col">a</th></tr><tr><td id="wide">x</td></tr></table></div>
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
  } catch (err) {
    await script.failed(err);
  } finally {
    await browser?.close().catch(() => undefined);
  }
}

script.run(main, Number(process.env.E2E_TIMEOUT_S ?? 120));
