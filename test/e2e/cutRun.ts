// The cut run type through the extension's doors, in a real VS Code (code-server + Chromium), issue 27 point 6: a
// folder of complete source videos (the CLI's cut sample, and one file that is no video) is cut from "fpsweep: Start a
// run…" → "Cut videos…" with the builtin cutter, in the engine's detached worker. The progress tree follows the output
// root it was given: the root's row ends failed and degraded with its counts, the file that is no video is listed
// with its reason, and each video's segments.json starts its segments where the sample was drawn to be cut. From a
// cut video's row, "Open caption viewer" shows that video's clips and boundaries.
// Run: `npm run package:vsix && tsx test/e2e/cutRun.ts` (code-server set up by scripts/e2e-setup.sh);
// `npm run test:e2e` runs it after the others.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { planCutSample } from '../../src/core/protocols/cut/sample/plan';
import { REPO } from './codeServer';
import { E2eScript } from './harness';
import { E2eSession, requireVsix } from './session';
import type { Workbench } from './workbench';

const TIMEOUT_S = Number(process.env.E2E_TIMEOUT_S ?? 420);
const CLI = path.join(REPO, 'dist', 'cli.js');
const OUT = path.join(REPO, 'test-output', 'e2e-cut');
const PLAN = planCutSample();
const NO_VIDEO = 'cut_z_not_a_video.mp4';
const VIEWED = PLAN.find((v) => v.expectedStarts.length > 2)!;
const stemOf = (file: string) => path.basename(file, path.extname(file));

let wb: Workbench | undefined;
const script = new E2eScript('e2e-cut', () => wb);
const log = (msg: string) => script.log(msg);
const check = (name: string, fn: () => Promise<void>) => script.check(name, fn);

const treeRow = (re: RegExp, timeoutMs?: number) => wb!.treeRow(re, timeoutMs);

async function main(): Promise<void> {
  const session = new E2eSession(OUT, 'e2e-cut');
  const work = session.work;
  const sources = path.join(work, 'sources');
  const cuts = path.join(work, 'cuts');
  try {
    await check('make the source videos with the CLI (`fpsweep avtime cut-sample`), and one file that is no video', async () => {
      requireVsix();
      log(execFileSync(process.execPath, [CLI, 'avtime', 'cut-sample', '--out', sources], { encoding: 'utf8' }).trim());
      fs.writeFileSync(path.join(sources, NO_VIDEO), 'this is no video\n');
    });

    await check('install the VSIX and start code-server on the work folder', async () => {
      log(await session.install());
      await session.start();
      wb = await session.openFolder(work, { width: 1400, height: 900 });
      await wb.runCommand('View: Show Frames × Pixels');
    });

    let rootRow = '';
    await check('"fpsweep: Start a run…" → "Cut videos…" (input root, output root, builtin) cuts in the worker; the tree follows the output root', async () => {
      await wb!.runCommand('fpsweep: Start a run…');
      await wb!.pickQuick('Cut videos…');
      // Each box is waited for by its own prompt: the next one opens only after the last was accepted.
      await wb!.fillInputBox(sources, 30_000, 'The input root');
      await wb!.fillInputBox(cuts, 30_000, 'The output root');
      await wb!.pickQuick('builtin');
      // The states only grow from here: the row is failed (one source is no video) once the worker has ended.
      const counts = `${PLAN.length} completed \\(${PLAN.length} degraded\\), 0 running, 1 failed, 0 pending`;
      rootRow = await treeRow(new RegExp(`^Cuts into cuts failed · degraded: ${counts}$`), 180_000);
      log(rootRow);
      const failed = await treeRow(new RegExp(`^Video ${stemOf(NO_VIDEO)} failed: `));
      log(failed);
      await wb!.screenshot('cut-ended');
    });

    await check("each video's segments.json starts its segments where the sample was drawn to be cut", async () => {
      for (const v of PLAN) {
        const file = path.join(cuts, stemOf(v.file), 'segments.json');
        const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { segments: { start_sec: number }[]; cutter: string };
        const starts = JSON.stringify(doc.segments.map((s) => s.start_sec));
        if (starts !== JSON.stringify(v.expectedStarts)) throw new Error(`${v.file}: starts ${starts}, not ${JSON.stringify(v.expectedStarts)}`);
        if (doc.cutter !== 'fpsweep-builtin') throw new Error(`${v.file}: cutter ${doc.cutter}`);
      }
      if (fs.existsSync(path.join(cuts, stemOf(NO_VIDEO), 'segments.json'))) throw new Error(`${NO_VIDEO} has a segments.json`);
    });

    await check(`"Open caption viewer" on ${stemOf(VIEWED.file)}'s row shows its clips and the boundaries the cut made`, async () => {
      // The completed group is collapsed: open it, then the video's context menu.
      await wb!.page.locator(`.monaco-list-row[aria-label^="${PLAN.length} video(s) completed"]`).first().click();
      const row = wb!.page.locator(`.monaco-list-row[aria-label^="Video ${stemOf(VIEWED.file)} completed"]`).first();
      await row.waitFor({ timeout: 30_000 });
      await wb!.contextMenuItem(row, 'Open caption viewer');
      const frame = await wb!.webviewFrame('body[data-view="caption-viewer"] #boundary-list .boundary-item', 60_000);
      const seen = await frame.evaluate<{ picked: string; picker: string[]; list: string[]; degraded: string }>(`({
        picked: document.getElementById('video-picker').value,
        picker: [...document.querySelectorAll('#video-picker option')].map((o) => o.value),
        list: [...document.querySelectorAll('#boundary-list .boundary-item')].map((b) => b.textContent),
        degraded: document.getElementById('cut-degraded')?.textContent ?? '',
      })`);
      log(JSON.stringify(seen));
      if (seen.picked !== stemOf(VIEWED.file)) throw new Error(`the viewer shows ${seen.picked}`);
      const stems = PLAN.map((v) => stemOf(v.file)).sort();
      if (JSON.stringify(seen.picker) !== JSON.stringify(stems)) throw new Error(`picker: ${JSON.stringify(seen.picker)}, not ${JSON.stringify(stems)}`);
      const starts = seen.list.map((t) => Number(/· ([\d.]+) s–/.exec(t)?.[1]));
      if (JSON.stringify(starts) !== JSON.stringify(VIEWED.expectedStarts)) throw new Error(`boundary list starts ${JSON.stringify(starts)}`);
      if (!seen.degraded.startsWith('Cut degraded (no asr, audio_events)')) throw new Error(`degraded: ${seen.degraded}`);
      await wb!.screenshot('cut-viewer');
    });
  } catch (err) {
    await script.failed(err);
  } finally {
    // A check that failed while the worker still cut: stop it before its folder goes.
    if (fs.existsSync(path.join(cuts, '.fpsweep-cut', 'worker.lock'))) {
      try {
        execFileSync(process.execPath, [CLI, 'stop', '--package', cuts, '--run-type', 'cut', '--wait', '--timeout', '60'], { stdio: 'pipe' });
      } catch (e) {
        log(`stop: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    await session.close(log);
  }
}

script.run(main, TIMEOUT_S);
