// Bundles the Node entry points (extension, CLI, worker, stand-in servers) to CommonJS.
// `vscode` is provided by the extension host; `sharp` carries native parts and ships in node_modules.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const nodeEntries = [
  { in: 'src/extension/extension.ts', out: 'extension' },
  { in: 'src/cli/main.ts', out: 'cli', shebang: true },
  { in: 'src/worker/main.ts', out: 'worker' },
  { in: 'src/standins/vllm/main.ts', out: 'standin-vllm', shebang: true },
  { in: 'src/standins/hub/main.ts', out: 'standin-hub', shebang: true },
  { in: 'src/standins/gemini/main.ts', out: 'standin-gemini', shebang: true },
];
// Webview front ends run in the browser; theme.css is the stylesheet every page links before its own (webviewShell.ts).
const webEntries = [
  { in: 'media/src/theme.css', out: 'media/theme' },
  { in: 'media/src/report.ts', out: 'media/report' },
  { in: 'media/src/protocols/caption/viewer.ts', out: 'media/captionViewer' },
  { in: 'media/src/protocols/fp/inspector.ts', out: 'media/itemInspector' },
];

// vega-canvas's Node build loads the optional `canvas` package with a top-level await, which a CommonJS bundle
// cannot hold. Node bundles take its browser build instead: no canvas there, so vega estimates text widths.
const vegaCanvasBrowser = {
  name: 'vega-canvas-browser',
  setup(build) {
    build.onResolve({ filter: /^vega-canvas$/ }, () => ({ path: require.resolve('vega-canvas').replace(/vega-canvas\.node\.js$/, 'vega-canvas.browser.js') }));
  },
};

async function main() {
  const watch = process.argv.includes('--watch');
  const production = process.argv.includes('--production');
  const missing = [...nodeEntries, ...webEntries].filter((e) => !fs.existsSync(e.in));
  // Entries are added as their features land; a missing one is reported, not silently dropped.
  for (const e of missing) console.warn(`esbuild: skipping ${e.in} (not present)`);
  const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning' };
  const contexts = [];
  for (const e of nodeEntries.filter((x) => fs.existsSync(x.in))) {
    contexts.push(
      await esbuild.context({
        ...common,
        entryPoints: [e.in],
        outfile: path.join('dist', e.out + '.js'),
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        external: ['vscode', 'sharp'],
        plugins: [vegaCanvasBrowser],
        banner: e.shebang ? { js: '#!/usr/bin/env node' } : undefined,
      }),
    );
  }
  for (const e of webEntries.filter((x) => fs.existsSync(x.in))) {
    contexts.push(
      await esbuild.context({
        ...common,
        entryPoints: [e.in],
        // A stylesheet entry (theme.css) comes out as a stylesheet; a script's imported CSS comes out beside it.
        outfile: path.join('dist', e.out + (e.in.endsWith('.css') ? '.css' : '.js')),
        platform: 'browser',
        target: 'es2022',
        format: 'iife',
      }),
    );
  }
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  for (const f of ['cli.js', 'standin-vllm.js', 'standin-hub.js', 'standin-gemini.js']) {
    const p = path.join('dist', f);
    if (fs.existsSync(p)) fs.chmodSync(p, 0o755);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
