// Benchmarks run their own file bundled by esbuild, as the CLI ships (dist/cli.js): tsx's per-access module
// getters would otherwise double what they measure. esbuild is imported here only: the bundled child never needs it.
import * as path from 'node:path';

export async function bundleSelf(entry: string, dir: string, name: string): Promise<string> {
  const { buildSync } = await import('esbuild');
  const outfile = path.join(dir, name);
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode', 'sharp', 'esbuild'],
    logLevel: 'warning',
  });
  return outfile;
}
