// The extension's bundle is loaded by the extension host at activation: nothing in it may load sharp (native libvips,
// the frame pipeline's). Views that read an FP model in the host (the item inspector's first step,
// src/extension/protocols/fp/inspectorSource.ts) import the model without the pipeline; the CLI makes frames. The
// oracle is the bundle esbuild makes (esbuild.js's options), not the import graph: a type-only import is no load.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const REPO = path.resolve(__dirname, '..', '..');

describe('the extension bundle', function () {
  this.timeout(120_000);

  it('loads no sharp (the CLI bundle does: the frame pipeline lives there)', async () => {
    const externals = async (entry: string) => {
      // ESM output only so that vega-canvas's top-level await needs no plugin here; the imports are the same.
      const r = await esbuild.build({
        entryPoints: [path.join(REPO, entry)],
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        external: ['vscode', 'sharp'],
        logLevel: 'silent',
        outdir: path.join(REPO, 'dist', 'unused'),
      });
      return Object.values(r.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    };
    assert.ok((await externals('src/cli/main.ts')).includes('sharp'), 'the oracle sees sharp where it is');
    assert.ok(!(await externals('src/extension/extension.ts')).includes('sharp'), 'the extension bundle loads sharp');
  });
});
