// The walkthroughs in a real VS Code (code-server + Chromium), issue 36 point 3: "Welcome: Open Walkthrough…" lists
// "Frames × Pixels: first sweep" and "AVTime: data path and benchmark" (package.json contributes.walkthroughs), each
// with its six steps unchecked and each step's image; running a step's command from the palette checks that step
// (its completionEvents: onCommand:…), and no other. Screenshots of the walkthrough in the light, dark and
// high-contrast themes go to test-output/ (docs/screenshots/ only through `npm run screenshots`).
// Run: `npm run package:vsix && tsx test/e2e/walkthrough.ts`; `npm run test:e2e` runs it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { installExtension, makeDirs, REPO, startCodeServer, type RunningCodeServer } from './codeServer';
import { E2eScript } from './harness';
import { themeShots } from './themes';
import { launchBrowser, Workbench } from './workbench';

const TIMEOUT_S = Number(process.env.E2E_TIMEOUT_S ?? 360);
const VSIX = path.join(REPO, 'fpsweep-linux-x64.vsix');
const OUT = path.join(REPO, 'test-output', 'e2e-walkthrough');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  contributes: { walkthroughs: { id: string; title: string; steps: { id: string; completionEvents: string[] }[] }[] };
};

let wb: Workbench | undefined;
const script = new E2eScript('e2e-walkthrough', () => wb);
const log = (msg: string) => script.log(msg);
const check = (name: string, fn: () => Promise<void>) => script.check(name, fn);

/** Each step shown of the open walkthrough: its id (the end of data-step-id) and whether it is checked. */
const STEPS = `[...document.querySelectorAll('button.getting-started-step')].map((b) => ({
  id: (b.getAttribute('data-step-id') || '').split('#').pop(),
  done: b.getAttribute('aria-checked') === 'true',
}))`;

async function openWalkthrough(title: string): Promise<{ id: string; done: boolean }[]> {
  await wb!.runCommand('Welcome: Open Walkthrough...');
  await wb!.pickQuick(title);
  await wb!.page.locator('.gettingStartedContainer', { hasText: title }).first().waitFor({ timeout: 60_000 });
  return wb!.until(
    `the steps of "${title}"`,
    30_000,
    async () => {
      const steps = await wb!.page.evaluate<{ id: string; done: boolean }[]>(STEPS);
      return steps.length ? steps : undefined;
    },
    async () => wb!.page.locator('.gettingStartedContainer').innerText(),
  );
}

/**
 * Runs a step's command from the palette (the walkthrough `walkthrough` open before it), then goes back to the
 * walkthrough by its tab (the command's editor took the front) and waits until exactly `want` are checked.
 */
async function completeByCommand(walkthrough: string, palette: string, want: string[]): Promise<void> {
  await openWalkthrough(walkthrough);
  await wb!.runCommand(palette);
  // The walkthrough's editor tab: "Welcome" or "Walkthrough: …" (VS Code names it either way).
  const tab = wb!.page.locator('.tabs-container .tab', { hasText: /^\s*(Welcome|Walkthrough\b)/ }).first();
  await wb!.until(
    `${want.join(', ')} checked in "${walkthrough}" after "${palette}"`,
    90_000,
    async () => {
      await tab.click({ timeout: 5000 });
      const steps = await wb!.page.evaluate<{ id: string; done: boolean }[]>(STEPS);
      const done = steps.filter((x) => x.done).map((x) => x.id);
      return JSON.stringify(done) === JSON.stringify(want) ? true : undefined;
    },
    async () => JSON.stringify(await wb!.page.evaluate(STEPS)),
  );
}

async function main(): Promise<void> {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-e2e-walkthrough-'));
  const ws = path.join(work, 'ws');
  fs.mkdirSync(ws);
  const dirs = makeDirs(path.join(work, 'code-server'));
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  const [fp, av] = PACKAGE.contributes.walkthroughs;
  try {
    await check('install the VSIX and start code-server on an empty folder', async () => {
      if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: npm run package:vsix`);
      log(await installExtension(dirs, VSIX));
      server = await startCodeServer(dirs, path.join(OUT, 'code-server.log'));
      browser = await launchBrowser();
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      wb = new Workbench(page, OUT);
      await wb.open(`${server.url}/?folder=${encodeURIComponent(ws)}`);
    });

    for (const w of [fp, av]) {
      await check(`"${w.title}": its ${w.steps.length} steps listed, none checked, each with its image`, async () => {
        const steps = await openWalkthrough(w.title);
        log(JSON.stringify(steps));
        const want = w.steps.map((s) => ({ id: s.id, done: false }));
        if (JSON.stringify(steps) !== JSON.stringify(want)) throw new Error(`steps: ${JSON.stringify(steps)}, expected ${JSON.stringify(want)}`);
        // The selected step's media is drawn: an <img> that loaded (PNG) or the SVG's frame.
        const media = await wb!.until(
          "the first step's image",
          30_000,
          async () => {
            const m = await wb!.page.evaluate<string>(`(() => {
              const img = document.querySelector('.getting-started-media img');
              if (img && img.complete && img.naturalWidth > 0) return 'img ' + img.getAttribute('src');
              const frame = document.querySelector('.getting-started-media iframe, .getting-started-media .webview');
              return frame ? 'svg in a frame' : '';
            })()`);
            return m || undefined;
          },
          async () => wb!.page.locator('.getting-started-media').first().innerHTML(),
        );
        log(`media: ${media}`);
      });
    }

    await check('a step is checked when its command runs from the palette, and only that step', async () => {
      await completeByCommand(fp.title, 'fpsweep: Open runbook', ['runbook']);
      await completeByCommand(av.title, 'fpsweep: Open AVTime Data runbook', ['dataRunbook']);
      // The first walkthrough is as it was: one command checks one step of one walkthrough.
      const steps = await openWalkthrough(fp.title);
      const done = steps.filter((s) => s.done).map((s) => s.id);
      if (JSON.stringify(done) !== JSON.stringify(['runbook'])) throw new Error(`"${fp.title}" checked: ${JSON.stringify(done)}`);
      await themeShots(wb!, null, 'walkthrough');
    });
  } catch (err) {
    await script.failed(err);
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (!process.env.E2E_KEEP) fs.rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
    else log(`kept ${work}`);
  }
}

script.run(main, TIMEOUT_S);
