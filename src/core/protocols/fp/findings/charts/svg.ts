// The findings charts as SVG files beside report.md: the same Vega-Lite specs as the webview (specs.ts), drawn
// headless with vega's View.toSVG() in Node. Expressions are interpreted from their AST (vega-interpreter),
// never compiled with `new Function`, exactly as in the webview under its CSP.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import type { Findings } from '../types';
import { ladderSpec, overviewSpec } from './specs';
import type { LadderPoint } from './viewModel';

/** Vega-Lite → Vega → SVG text. Loaded on first use (vega is large and ESM-only). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vl, interp] = await Promise.all([import('vega'), import('vega-lite'), import('vega-interpreter')]);
  const view = new vega.View(vega.parse(vl.compile(spec).spec, undefined, { ast: true }), {
    renderer: 'none',
    expr: interp.expressionInterpreter as never,
  });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * A file name for a benchmark's chart: its name reduced to [A-Za-z0-9._-] (a data string never becomes a path
 * as it is) plus its index, so two names that reduce alike stay apart.
 */
export function chartFileName(benchmark: string, index: number): string {
  const slug =
    benchmark
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 60) || 'benchmark';
  return `findings-${String(index + 1).padStart(2, '0')}-${slug}.svg`;
}

export interface ChartFile {
  /** File name inside the reports folder. */
  file: string;
  title: string;
}

/** Writes the overview and one card chart per benchmark into `dir` (temp file + rename each); returns them in order. */
export async function writeFindingsCharts(
  dir: string,
  f: Findings,
  ladders: Readonly<Record<string, readonly LadderPoint[]>>,
  tokenNote = '',
): Promise<ChartFile[]> {
  await fs.mkdir(dir, { recursive: true });
  const charts: { file: string; title: string; spec: TopLevelSpec }[] = [
    { file: 'findings-overview.svg', title: 'Pixels or frames: the overview', spec: overviewSpec(f) },
  ];
  f.benchmarks.forEach((b, i) =>
    charts.push({ file: chartFileName(b.benchmark, i), title: b.benchmark, spec: ladderSpec(b, ladders[b.benchmark] ?? [], undefined, tokenNote) }),
  );
  for (const c of charts) {
    const target = path.join(dir, c.file);
    const tmp = `${target}.${process.pid}.tmp`;
    await fs.writeFile(tmp, await renderSvg(c.spec));
    await fs.rename(tmp, target);
  }
  return charts.map(({ file, title }) => ({ file, title }));
}

/** Markdown that shows the charts (relative links: the files sit beside report.md). Titles are escaped. */
export function chartsMarkdown(files: readonly ChartFile[]): string[] {
  const esc = (s: string) => s.replace(/[\\[\]()<>&*_`|]/g, (ch) => `\\${ch}`);
  const out = ['## Findings charts', ''];
  for (const c of files) out.push(`![${esc(c.title)}](${encodeURI(c.file)})`, '');
  return out;
}
