// The findings charts as SVG files beside report.md: the same Vega-Lite specs as the webview (specs.ts), drawn
// headless with vega's View.toSVG() in Node. Expressions are interpreted from their AST (vega-interpreter),
// never compiled with `new Function`, exactly as in the webview under its CSP.
import type { TopLevelSpec } from 'vega-lite';

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

/** Markdown that shows the charts (relative links: the files sit beside report.md). Titles are escaped. */
export function chartsMarkdown(files: readonly ChartFile[]): string[] {
  const esc = (s: string) => s.replace(/[\\[\]()<>&*_`|]/g, (ch) => `\\${ch}`);
  const out = ['## Findings charts', ''];
  for (const c of files) out.push(`![${esc(c.title)}](${encodeURI(c.file)})`, '');
  return out;
}
