// The extension's half of the third-run-type proof (issue 24), in a real VS Code (code-server + Chromium): the run
// type "tally" (test/fixtures/runTypes/tally/) is added to a copy of this tree by scripts/proveRunType.ts — its
// folders and one entry per registry, nothing in package.json — and the copy's VSIX is installed. With a tally root
// open, its group and row show in the progress tree; the extension's one "fpsweep: Start a run…" offers it and starts
// the product's worker;
// the generic "fpsweep: Stop" (shown by the context keys) stops it; the row says so. The stand-ins hold every request
// (their hold file) until the stop is asked, so the run is live for as long as the test needs: no race.
// Run: `npm run test:e2e` runs it after test/e2e/run.ts (code-server set up by scripts/e2e-setup.sh).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { addRunTypeToCopy } from '../../scripts/proveRunType';
import { installExtension, makeDirs, REPO, startCodeServer, type RunningCodeServer } from './codeServer';
import { E2eScript } from './harness';
import { launchBrowser, Workbench } from './workbench';

const TIMEOUT_S = Number(process.env.E2E_TIMEOUT_S ?? 600);
const OUT = path.join(REPO, 'test-output', 'e2e-tally');
const ITEMS = Array.from({ length: 12 }, (_, i) => `item-${String(i).padStart(2, '0')}`);

let wb: Workbench | undefined;
const script = new E2eScript('e2e-tally', () => wb);
const log = (msg: string) => script.log(msg);
const check = (name: string, fn: () => Promise<void>) => script.check(name, fn);

const treeRow = (re: RegExp, timeoutMs?: number) => wb!.treeRow(re, timeoutMs);

async function main(): Promise<void> {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-e2e-tally-'));
  const root = path.join(work, 'tally');
  const hold = path.join(work, 'hold');
  const statusFile = path.join(root, '.fpsweep', 'tally-status.json');
  const readStatus = () => JSON.parse(fs.existsSync(statusFile) ? fs.readFileSync(statusFile, 'utf8') : 'null');
  const dirs = makeDirs(path.join(work, 'code-server'));
  let copy: string | undefined;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  try {
    let vsix = '';
    await check('add tally to a copy of the tree and package its VSIX', async () => {
      const proved = addRunTypeToCopy(path.join(REPO, 'test', 'fixtures', 'runTypes', 'tally'));
      copy = proved.dir;
      log(`outside its folders: ${proved.outside.map((t) => `${t.file} +${t.added} -${t.removed}`).join(', ')}`);
      execFileSync('npm', ['run', '--silent', 'package:vsix'], { cwd: copy, stdio: 'pipe' });
      vsix = path.join(copy, 'fpsweep-linux-x64.vsix');
      if (!fs.existsSync(vsix)) throw new Error(`no VSIX in ${copy}`);
    });

    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'tally.json'), JSON.stringify({ items: ITEMS }) + '\n');
    fs.writeFileSync(hold, 'held until the stop is asked\n');

    await check("install the copy's VSIX and start code-server", async () => {
      log(await installExtension(dirs, vsix));
      // The extension host's environment reaches the CLI it starts and the stand-ins: the stand-in vLLM, its hold.
      const env = { ...process.env, VLLM_BIN: path.join(REPO, 'bin', 'fake-vllm'), FPSWEEP_STANDIN_HOLD_FILE: hold, FPSWEEP_STANDIN_LATENCY: 'a=0.02,b=0' };
      server = await startCodeServer(dirs, path.join(OUT, 'code-server.log'), env);
    });

    await check('open the tally root: its group and its row in the progress tree', async () => {
      browser = await launchBrowser();
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      wb = new Workbench(page, OUT);
      await wb.open(`${server!.url}/?folder=${encodeURIComponent(root)}`);
      await wb.runCommand('View: Show Frames × Pixels');
      await treeRow(/^Tally: 1 run/);
      log(await treeRow(/^Tally run todo: 0 done, 12 to do/));
      // The workspace is no Frames × Pixels package and fpsweep.packagePath is unset: no FP group (once the
      // extension has looked; no "Dry run failed" in a folder that was never a package).
      await wb.until(
        'no Frames × Pixels group in a tally workspace',
        60_000,
        async () => ((await wb!.treeLabels()).some((l) => /^Frames × Pixels|Dry run failed/.test(l)) ? undefined : true),
        async () => JSON.stringify(await wb!.treeLabels()),
      );
      await wb.screenshot('tally-idle');
    });

    await check('"fpsweep: Start a run…" offers Tally (no command of its own) and starts the worker; the row goes live', async () => {
      await wb!.runCommand('fpsweep: Start a run…');
      await wb!.pickQuick('Tally: Run');
      await wb!.until(
        'the worker running with requests held in flight',
        90_000,
        async () => (readStatus()?.state === 'running' && readStatus()?.inFlight >= 1 ? true : undefined),
        async () => JSON.stringify(readStatus()),
      );
      log(await treeRow(/^Tally run running/));
      await wb!.screenshot('tally-running');
    });

    await check('"fpsweep: Stop" stops it; the row says stopped and the lock is given back', async () => {
      await wb!.runCommand('fpsweep: Stop');
      await wb!.until(
        'the worker to report the stop',
        30_000,
        async () => (readStatus()?.stopRequested ? true : undefined),
        async () => JSON.stringify(readStatus()),
      );
      fs.rmSync(hold); // the requests held in flight are answered now (the drain writes them)
      await wb!.until(
        'the stopped run to give its lock back',
        60_000,
        async () => (readStatus()?.state === 'stopped' && !fs.existsSync(path.join(root, '.fpsweep', 'worker.lock')) ? true : undefined),
        async () => JSON.stringify(readStatus()),
      );
      const rows = fs.readFileSync(path.join(root, 'answers.jsonl'), 'utf8').split('\n').filter(Boolean).length;
      if (rows !== readStatus().answered || rows >= ITEMS.length) throw new Error(`${rows} rows after the stop: ${JSON.stringify(readStatus())}`);
      log(await treeRow(new RegExp(`^Tally run stopped: ${rows} done, ${ITEMS.length - rows} to do`)));
      await wb!.screenshot('tally-stopped');
    });
  } catch (err) {
    await script.failed(err);
  } finally {
    fs.rmSync(hold, { force: true });
    if (copy && fs.existsSync(path.join(root, '.fpsweep', 'worker.lock'))) {
      try {
        execFileSync(process.execPath, [path.join(copy, 'dist', 'cli.js'), 'stop', '--package', root, '--wait', '--timeout', '60'], { stdio: 'pipe' });
      } catch (e) {
        log(`stop: ${(e as Error).message}`);
      }
    }
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (!process.env.E2E_KEEP) {
      fs.rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
      if (copy) fs.rmSync(copy, { recursive: true, force: true });
    } else log(`kept ${work} and ${copy}`);
  }
}

script.run(main, TIMEOUT_S);
