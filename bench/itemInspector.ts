// The item inspector on a 582-frame item (issue 36 point 1: "opens in under a second"), not a test:
//   npm run build && npx tsx bench/itemInspector.ts [--repeat 3]     (the old path's CLI child needs dist/cli.js)
// A synthetic package as large as a full sweep's files (results CSV of 13 benchmarks × 300 items × 13 conditions,
// raw files of 300 records) holds one item whose v_fps2_s224 row sent 582 frames (SPEC §2.2's cap for 16:9) and whose
// v_8_s224 row sent 8, with every JPEG (398×224, noisy like a real frame) in the run's frame store. It times:
//   host    readInspection() without a frame maker: the panel's first step now, in the extension host
//   cli     `node dist/cli.js inspect --json`: the panel's model before (a child per open, Node's start included)
//   page    the inspector's own view (media/src/protocols/fp/inspectorView.ts, bundled by esbuild) in Chromium, from
//           the draw call to every frame inside the first screen decoded, and to every image asked for loaded:
//           eager (every <img> given its src at once), lazy (src set as a frame nears the view: the panel before),
//           first (lazy, and the first screen's frames drawn before the rest: the panel now)
//   open    old = cli + page lazy's first screen; new = host + page first's first screen (the postMessage between
//           them is not timed; the e2e records the whole open in code-server)
// It prints medians and the new/old ratio, measured in the same run. The machine is shared: run twice.
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import { readInspection } from '../src/core/protocols/fp/inspect';
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
const ms = (x: number) => `${x.toFixed(0)} ms`;
const BENCH = 'LongBench';
const ITEM = 'LongBench_0001';
const HASH = 'longvideo0001';
/** A full sweep's size around the item: benchmarks, items per benchmark, conditions (SPEC's ladder). */
const FILL = { benchmarks: 13, items: 300, conditions: 13 };

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
    // The item's record among a benchmark's 300 (the reader scans them all).
    const others = Array.from({ length: FILL.items - 1 }, (_, k) => JSON.stringify({ ...raw, item_id: `${BENCH}_${String(k + 2).padStart(4, '0')}` }));
    await fs.writeFile(layout.rawFile(cond, BENCH), [...others.slice(0, 150), JSON.stringify(raw), ...others.slice(150)].join('\n') + '\n');
    csv.push(`${BENCH},${ITEM},${cond},ok,B,B,1,${plan.indices.length},50000,9.5,2026-12-06T00:00:00Z`);
    const dir = path.join(layout.frameStoreDir, HASH);
    await fs.mkdir(dir, { recursive: true });
    for (const i of plan.indices)
      await fs.writeFile(path.join(dir, frameFileName(i, plan as { width: number; height: number })), await noisyJpeg(i, plan.width!, plan.height!));
  }
  for (let b = 0; b < FILL.benchmarks; b++)
    for (let i = 0; i < FILL.items; i++)
      for (let c = 0; c < FILL.conditions; c++)
        csv.push(`Bench${b},Bench${b}_${String(i).padStart(4, '0')},v_${c + 1},ok,A,B,0,${c + 1},1200,0.8,2026-12-06T00:00:00Z`);
  await fs.mkdir(layout.resultsDir, { recursive: true });
  await fs.writeFile(layout.resultsCsv, csv.join('\n') + '\n');
}

/** The view's bundle and a page that draws the model with it, eager or lazy (window.__draw). */
async function makePage(dir: string): Promise<string> {
  const entry = path.join(dir, 'entry.ts');
  await fs.writeFile(
    entry,
    `import { FIRST_SCREEN_FRAMES, renderInspection } from ${JSON.stringify(path.join(REPO, 'media/src/protocols/fp/inspectorView'))};\n` +
      `import ${JSON.stringify(path.join(REPO, 'media/src/protocols/fp/inspector.css'))};\n` +
      '(window as any).__draw = (m: any, uris: any, o: { lazy: boolean; first: boolean }) =>\n' +
      "  document.getElementById('app')!.appendChild(renderInspection(m, uris, { lazy: o.lazy, firstScreen: o.first ? FIRST_SCREEN_FRAMES : undefined }));\n",
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
    const ask = { benchmark: BENCH, itemId: ITEM };
    const model = await readInspection(root, ask, null);
    const frames = model.conditions.map((c) => c.frames.length);
    if (!frames.includes(582)) throw new Error(`expected a 582-frame condition, got ${frames.join(', ')}`);
    console.log(`item ${BENCH} ${ITEM}: ${model.conditions.map((c) => `${c.condition} ${c.frames.length} frames (${c.frames[0]?.source})`).join(', ')}`);

    const hostS = await medianSeconds(REPEAT, () => readInspection(root, ask, null).then(() => undefined));
    console.log(`host    readInspection (the panel now): ${ms(hostS * 1000)} (median of ${REPEAT})`);
    const cli = path.join(REPO, 'dist', 'cli.js');
    if (!existsSync(cli)) throw new Error('dist/cli.js is not built: npm run build (the old path is the CLI child)');
    const cliS = await medianSeconds(REPEAT, () => {
      execFileSync(process.execPath, [cli, 'inspect', '--json', '--package', root, '--benchmark', BENCH, '--item', ITEM], { maxBuffer: 64 << 20 });
    });
    console.log(`cli     node dist/cli.js inspect --json (the panel before): ${ms(cliS * 1000)} (median of ${REPEAT}; Node's start included)`);

    const url = await makePage(work);
    const uris = model.conditions.map((c) => c.frames.map((f) => (f.file ? pathToFileURL(f.file).href : null)));
    const MODES = {
      eager: { lazy: false, first: false },
      lazy: { lazy: true, first: false },
      first: { lazy: true, first: true },
    } as const;
    type Mode = keyof typeof MODES;
    const modes = Object.keys(MODES) as Mode[];
    const times = Object.fromEntries(modes.map((m) => [m, { drawn: [] as number[], screen: [] as number[], load: [] as number[], requested: [] as number[] }]));
    for (let k = 0; k < REPEAT; k++) {
      // Each round in another order, so that none always goes first on a loaded machine.
      for (const mode of modes.map((_, i) => modes[(i + k) % modes.length])) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        let requested = 0;
        page.on('request', (r) => r.url().endsWith('.jpg') && requested++);
        await page.goto(url);
        const t0 = performance.now();
        // The page's own script draws (window.__draw, page.html); the model travels as JSON.
        await page.evaluate(`window.__draw(${JSON.stringify(model)}, ${JSON.stringify(uris)}, ${JSON.stringify(MODES[mode])})`);
        times[mode].drawn.push(performance.now() - t0);
        // Every frame whose box is inside the first screen has decoded (what the reader sees as "open").
        await page.waitForFunction(
          "[...document.querySelectorAll('img')].filter((i) => i.getBoundingClientRect().top < innerHeight).every((i) => i.complete && i.naturalWidth > 0)",
        );
        times[mode].screen.push(performance.now() - t0);
        await page.waitForFunction("[...document.querySelectorAll('img')].every((i) => !i.src || i.complete)");
        times[mode].load.push(performance.now() - t0);
        times[mode].requested.push(requested);
        // Scrolled to the end, the page draws every frame (the first-screen mode draws the rest as they are reached).
        const all = model.conditions.reduce((n, c) => n + c.frames.length, 0);
        for (let tries = 0; tries < 30 && (await page.evaluate("document.querySelectorAll('figure.frame').length")) !== all; tries++)
          await page.evaluate('window.scrollTo(0, document.body.scrollHeight)').then(() => page.waitForTimeout(100));
        const figures = await page.evaluate("document.querySelectorAll('figure.frame').length");
        if (figures !== all) throw new Error(`${mode}: ${figures} of ${all} frames drawn after scrolling to the end`);
        await page.close();
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const mode of modes) {
      const t = times[mode];
      const line = `drawn ${ms(med(t.drawn))} · first screen ${ms(med(t.screen))} · settled ${ms(med(t.load))}`;
      console.log(`page    ${mode.padEnd(5)}: ${line} · ${med(t.requested)} JPEGs requested`);
    }
    const before = cliS * 1000 + med(times.lazy.screen);
    const now = hostS * 1000 + med(times.first.screen);
    console.log(`open    before (cli + lazy page): ${ms(before)} · now (host + first-screen page): ${ms(now)}`);
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const screen = ratio(med(times.first.screen), med(times.lazy.screen));
    const requested = ratio(med(times.lazy.requested), med(times.eager.requested));
    console.log(`ratio   open now/before: ${ratio(now, before)} · first screen first/lazy: ${screen} · lazy/eager JPEGs requested: ${requested}`);
  } finally {
    await browser.close();
    await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
