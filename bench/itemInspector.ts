// The item inspector on a 582-frame item (issue 36 point 1: "opens in under a second"), not a test:
//   npx tsx bench/itemInspector.ts [--repeat 3]            (npm run build first to time the CLI's child as well)
// A synthetic package holds one item whose v_fps2_s224 row sent 582 frames (SPEC §2.2's cap for 16:9) and whose
// v_8_s224 row sent 8, with every JPEG (398×224, noisy like a real frame) in the run's frame store. It times:
//   model   inspectItem() in this process (the core: item, manifest, CSV, raw records, frame files)
//   cli     `node dist/cli.js inspect --json` as the panel runs it (Node's start included), when dist/ is built
//   page    the inspector's own view (media/src/protocols/fp/inspectorView.ts, bundled by esbuild) in Chromium, from
//           navigation to every frame inside the first screen decoded (the panel's "open"), and to the load event:
//           eager (every <img> given its src at once: the baseline) against lazy (src set as a frame nears the view)
// It prints medians and the lazy/eager ratio, measured in the same run. The machine is shared: run twice.
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import { inspectItem } from '../src/core/protocols/fp/inspect';
import { frameFileName } from '../src/core/protocols/fp/frames';
import { PackageLayout } from '../src/core/protocols/fp/package/layout';
import { parseCondition, planFrames } from '../src/core/protocols/fp/rules';
import { sendMeta } from '../src/core/protocols/fp/sweep/records';
import { medianSeconds } from './timing';

const REPO = path.resolve(__dirname, '..');
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const REPEAT = Number(arg('repeat', '3'));
const BENCH = 'LongBench';
const ITEM = 'LongBench_0001';
const HASH = 'longvideo0001';

/** A 30-min 1280×720 video at 2 fps stored timestamps: its fps2 plan is capped at 582 frames. */
function meta() {
  const n = 3600;
  const timestamps = Array.from({ length: n }, (_, i) => i * 0.5);
  return { hash: HASH, width: 1280, height: 720, duration_s: n * 0.5, n_frames: n, timestamps, too_short: false };
}

async function noisyJpeg(seed: number, width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = seed * 2654435761;
  for (let i = 0; i < raw.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    raw[i] = ((i / 3) % width) / 2 + ((x >>> 24) & 63);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function makePackage(root: string): Promise<void> {
  const layout = new PackageLayout(root);
  const m = meta();
  await fs.mkdir(layout.samplesDir, { recursive: true });
  await fs.mkdir(path.dirname(layout.manifest), { recursive: true });
  await fs.mkdir(layout.videoDir(HASH), { recursive: true });
  const item = { item_id: ITEM, benchmark: BENCH, video_id: 'v1', question: 'What happens at the end?', options: ['a', 'b', 'c', 'd'], answer: 'B' };
  await fs.writeFile(layout.samplesFile(BENCH), JSON.stringify(item) + '\n');
  await fs.writeFile(layout.manifest, JSON.stringify({ benchmark: BENCH, video_id: 'v1', hash: HASH }) + '\n');
  await fs.writeFile(layout.metaFile(HASH), JSON.stringify(m));
  await fs.writeFile(layout.videoFile(HASH), '');
  const csv = ['benchmark,item_id,condition,status,pred,answer,correct,n_frames,prompt_tokens,latency_s,ts'];
  for (const cond of ['v_fps2_s224', 'v_8_s224']) {
    const plan = planFrames(parseCondition(cond), m);
    if (plan.status !== 'send') throw new Error(`${cond}: ${plan.status}`);
    await fs.mkdir(layout.rawDir(cond), { recursive: true });
    const raw = {
      benchmark: BENCH,
      item_id: ITEM,
      condition: cond,
      status: 'ok',
      response: 'B',
      pred: 'B',
      answer: 'B',
      correct: 1,
      usage: { prompt_tokens: 50000, completion_tokens: 1 },
      latency_s: 9.5,
      endpoint: 'http://127.0.0.1:8011',
      ts: '2026-12-06T00:00:00Z',
      meta: sendMeta(plan, 50000),
    };
    await fs.writeFile(layout.rawFile(cond, BENCH), JSON.stringify(raw) + '\n');
    csv.push(`${BENCH},${ITEM},${cond},ok,B,B,1,${plan.indices.length},50000,9.5,2026-12-06T00:00:00Z`);
    const dir = path.join(layout.frameStoreDir, HASH);
    await fs.mkdir(dir, { recursive: true });
    for (const i of plan.indices)
      await fs.writeFile(path.join(dir, frameFileName(i, plan as { width: number; height: number })), await noisyJpeg(i, plan.width!, plan.height!));
  }
  await fs.mkdir(layout.resultsDir, { recursive: true });
  await fs.writeFile(layout.resultsCsv, csv.join('\n') + '\n');
}

/** The view's bundle and a page that draws the model with it, eager or lazy (window.__draw). */
async function makePage(dir: string): Promise<string> {
  const entry = path.join(dir, 'entry.ts');
  await fs.writeFile(
    entry,
    `import { renderInspection } from ${JSON.stringify(path.join(REPO, 'media/src/protocols/fp/inspectorView'))};\n` +
      `import ${JSON.stringify(path.join(REPO, 'media/src/protocols/fp/inspector.css'))};\n` +
      `(window as any).__draw = (m: any, uris: any, lazy: boolean) => document.getElementById('app')!.appendChild(renderInspection(m, uris, { lazy }));\n`,
  );
  await esbuild.build({ entryPoints: [entry], bundle: true, outfile: path.join(dir, 'page.js'), platform: 'browser', format: 'iife', logLevel: 'error' });
  await fs.copyFile(path.join(REPO, 'media/src/theme.css'), path.join(dir, 'theme.css'));
  const html = path.join(dir, 'page.html');
  await fs.writeFile(
    html,
    '<!DOCTYPE html><html><head><meta charset="UTF-8"><link rel="stylesheet" href="theme.css"><link rel="stylesheet" href="page.css"></head>' +
      '<body><main id="app"></main><script src="page.js"></script></body></html>',
  );
  return pathToFileURL(html).href;
}

async function main(): Promise<void> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-bench-inspector-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const root = path.join(work, 'pkg');
    await makePackage(root);
    const model = await inspectItem(root, { benchmark: BENCH, itemId: ITEM, rebuild: false });
    const frames = model.conditions.map((c) => c.frames.length);
    if (frames[frames.length - 1] !== 582 && !frames.includes(582)) throw new Error(`expected a 582-frame condition, got ${frames.join(', ')}`);
    console.log(`item ${BENCH} ${ITEM}: ${model.conditions.map((c) => `${c.condition} ${c.frames.length} frames (${c.frames[0]?.source})`).join(', ')}`);

    const modelS = await medianSeconds(REPEAT, () => inspectItem(root, { benchmark: BENCH, itemId: ITEM, rebuild: false }).then(() => undefined));
    console.log(`model   inspectItem: ${(modelS * 1000).toFixed(0)} ms (median of ${REPEAT})`);
    const cli = path.join(REPO, 'dist', 'cli.js');
    if (existsSync(cli)) {
      const cliS = await medianSeconds(REPEAT, () => {
        execFileSync(process.execPath, [cli, 'inspect', '--json', '--package', root, '--benchmark', BENCH, '--item', ITEM], { maxBuffer: 64 << 20 });
      });
      console.log(`cli     node dist/cli.js inspect --json: ${(cliS * 1000).toFixed(0)} ms (median of ${REPEAT}; Node's start included)`);
    } else console.log('cli     skipped: dist/cli.js is not built (npm run build)');

    const url = await makePage(work);
    const uris = model.conditions.map((c) => c.frames.map((f) => (f.file ? pathToFileURL(f.file).href : null)));
    const times: Record<'eager' | 'lazy', { drawn: number[]; screen: number[]; load: number[]; requested: number[] }> = {
      eager: { drawn: [], screen: [], load: [], requested: [] },
      lazy: { drawn: [], screen: [], load: [], requested: [] },
    };
    for (let k = 0; k < REPEAT; k++) {
      for (const mode of k % 2 ? (['lazy', 'eager'] as const) : (['eager', 'lazy'] as const)) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        let requested = 0;
        page.on('request', (r) => r.url().endsWith('.jpg') && requested++);
        await page.goto(url);
        const t0 = performance.now();
        // The page's own script draws (window.__draw, page.html); the model travels as JSON.
        await page.evaluate(`window.__draw(${JSON.stringify(model)}, ${JSON.stringify(uris)}, ${mode === 'lazy'})`);
        times[mode].drawn.push(performance.now() - t0);
        // Every frame whose box is inside the first screen has decoded (what the reader sees as "open").
        await page.waitForFunction(
          "[...document.querySelectorAll('img')].filter((i) => i.getBoundingClientRect().top < innerHeight).every((i) => i.complete && i.naturalWidth > 0)",
        );
        times[mode].screen.push(performance.now() - t0);
        await page.waitForFunction("[...document.querySelectorAll('img')].every((i) => !i.src || i.complete)");
        times[mode].load.push(performance.now() - t0);
        times[mode].requested.push(requested);
        await page.close();
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const mode of ['eager', 'lazy'] as const) {
      const t = times[mode];
      const line = `drawn ${med(t.drawn).toFixed(0)} ms · first screen ${med(t.screen).toFixed(0)} ms · settled ${med(t.load).toFixed(0)} ms`;
      console.log(`page    ${mode.padEnd(5)}: ${line} · ${med(t.requested)} JPEGs requested`);
    }
    console.log(
      `ratio   lazy/eager, first screen: ${(med(times.lazy.screen) / med(times.eager.screen)).toFixed(2)} · JPEGs requested: ${(
        med(times.lazy.requested) / med(times.eager.requested)
      ).toFixed(2)}`,
    );
  } finally {
    await browser.close();
    await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
