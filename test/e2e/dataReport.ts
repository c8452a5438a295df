// End-to-end check of AVTime's data report panel in code-server (issue 26 point 6): a split made by the CLI on the
// generated corpus, opened with "fpsweep: Open AVTime data report" → Split; the webview draws the 5 × 5 strata
// heatmap and the bins with vega under the strict CSP. In the light, dark and high-contrast themes (issue 36 point 5)
// the charts are drawn again in the theme's colors: every axis label in the body's --vscode-foreground. Screenshots
// go to test-output/ (docs/screenshots/ only through `npm run screenshots`).
// Run after `npm run package:vsix`: `tsx test/e2e/dataReport.ts`. Bounded: E2E_TIMEOUT_S (default 420 s).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeCorpus } from '../core/protocols/avtime/data/corpus';
import { REPO } from './codeServer';
import { E2eScript } from './harness';
import { keyboardAudit, refreshWithSpace } from './keyboard';
import { E2eSession, requireVsix } from './session';
import { themeShots } from './themes';
import type { Workbench } from './workbench';

const TIMEOUT_S = Number(process.env.E2E_TIMEOUT_S ?? 420);
const OUT = path.join(REPO, 'test-output', 'e2e-data');

let wb: Workbench | undefined;
const script = new E2eScript('e2e-data', () => wb);
const log = (msg: string) => script.log(msg);
const check = (name: string, fn: () => Promise<void>) => script.check(name, fn);

async function main(): Promise<void> {
  const session = new E2eSession(OUT, 'e2e-data');
  const ws = path.join(session.work, 'ws');
  const corpus = makeCorpus(200);
  try {
    await check('the split of the generated corpus, by the CLI, into the workspace', async () => {
      requireVsix();
      const split = path.join(ws, 'outputs', 'avtime-data', 'split');
      const args = ['avtime', 'split', '--source', corpus.source, '--output-root', split, '--derive-test-ids', '--test-size', '60'];
      const cli = path.join(REPO, 'dist', 'cli.js');
      log(execFileSync(process.execPath, [cli, ...args, '--expected-rows', String(corpus.retained)], { encoding: 'utf8' }).trim());
    });

    await check('install the VSIX and start code-server', async () => {
      log(await session.install());
      await session.start();
    });

    await check('"Open AVTime data report" → Split: the strata heatmap and the bins drawn, counts, checks and hashes shown', async () => {
      wb = await session.openFolder(ws, { width: 1400, height: 1000 });
      await wb.runCommand('fpsweep: Open AVTime data report');
      await wb.pickQuick('Split');
      // data-drawn: vega ran and put its SVG in; a CSP refusal would leave an error there instead.
      const frame = await wb.webviewFrame('body[data-kind="avtimeData"] section[data-report="split"] .chart[data-drawn] svg', 120_000);
      await frame.locator('.chart').nth(1).locator('svg').waitFor({ timeout: 60_000 });
      const text = await frame.evaluate<string>('document.body.innerText');
      fs.writeFileSync(path.join(OUT, 'split-webview.txt'), text);
      for (const want of ['Strata', 'retained', '201', 'excluded: other source', 'ids_disjoint', 'passed', 'test_ids.jsonl']) {
        if (!text.includes(want)) throw new Error(`the split report lacks "${want}"; it shows:\n${text.slice(0, 1500)}`);
      }
      const cells = await frame.evaluate<number>(`document.querySelectorAll(".chart")[0].querySelectorAll("g.mark-rect.role-mark path").length`);
      if (cells !== 25) throw new Error(`the strata heatmap drew ${cells} cell(s), not 25`);
      const errors = await frame.evaluate<number>("document.querySelectorAll('.chart.error, p.error').length");
      if (errors !== 0) throw new Error(`the split report shows ${errors} error(s):\n${text.slice(0, 1500)}`);
      // Every bin with the values it holds, bin 0 and bin 4 too (issue 44: bins 0–4 had no cut points beside them).
      const bins = await frame.evaluate<string[][]>(`(() => {
        const t = [...document.querySelectorAll('table.data')].find((x) => x.caption && x.caption.textContent.startsWith('Bins'));
        return t ? [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)) : [];
      })()`);
      log(`bins: ${JSON.stringify(bins)}`);
      if (bins.length !== 5 || !bins[0][1].startsWith('< ') || !bins[4][1].startsWith('≥ ') || bins.some((b) => b.slice(1).some((x) => x === '—')))
        throw new Error(`the bins table: ${JSON.stringify(bins)}`);
      // Each theme: the charts drawn again, every axis and legend label in the theme's foreground.
      await themeShots(wb, frame, 'data-split-report', {
        log,
        // The shot shows what the report is about: the bins chart whole (it was cut at the window's bottom), scrolled
        // into view after the audit's resizes.
        ready: async () => {
          const chart = frame.locator('.chart').nth(1);
          await chart.scrollIntoViewIfNeeded();
          const inView = await frame.evaluate<{ top: number; bottom: number; height: number }>(`(() => {
            const r = document.querySelectorAll('.chart')[1].getBoundingClientRect();
            return { top: Math.round(r.top), bottom: Math.round(r.bottom), height: innerHeight };
          })()`);
          if (inView.top < 0 || inView.bottom > inView.height) throw new Error(`the bins chart is not wholly in view: ${JSON.stringify(inView)}`);
        },
        check: async (theme) => {
          const seen = await wb!.until(
            `the charts' labels in the ${theme} theme's foreground`,
            30_000,
            async () => {
              const v = await frame.evaluate<{ fg: string; fills: string[] }>(LABEL_FILLS);
              return v.fills.length > 0 && v.fills.every((f) => f === v.fg) ? v : undefined;
            },
            async () => JSON.stringify(await frame.evaluate(LABEL_FILLS)),
          );
          log(`${theme}: ${seen.fills.length} labels in ${seen.fg}`);
        },
      });
    });

    await check('without a mouse: Tab reaches every control, each drawn focused; Space on Refresh draws the report again', async () => {
      const frame = await wb!.webviewFrame('body[data-kind="avtimeData"] section[data-report="split"] .chart[data-drawn] svg', 30_000);
      log(await keyboardAudit(wb!.page, frame, 'data-split-report'));
      await refreshWithSpace(wb!.page, frame, 'the data report');
    });
  } catch (err) {
    await script.failed(err);
  } finally {
    await session.close(log);
    fs.rmSync(corpus.dir, { recursive: true, force: true });
  }
}

/** Webview code: the theme's foreground and the fill of every axis and legend label the charts drew. */
const LABEL_FILLS = `(() => ({
  fg: getComputedStyle(document.body).getPropertyValue('--vscode-foreground').trim(),
  fills: [...document.querySelectorAll(${JSON.stringify('.chart[data-drawn] svg .role-axis-label text, .chart[data-drawn] svg .role-legend-label text')})]
    .map((t) => t.getAttribute('fill')),
}))()`;

script.run(main, TIMEOUT_S);
