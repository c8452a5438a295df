// Draws a Vega-Lite spec (the findings' charts/specs.ts, AVTime's data charts) into an element with vega's SVG
// renderer. The webview's CSP has no 'unsafe-eval': expressions are parsed to an AST and interpreted
// (vega-interpreter), never compiled with `new Function`. Text from the data is set as SVG text by vega.
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { expressionInterpreter } from 'vega-interpreter';
import type { ChartTheme } from '../../src/core/charts/chartTheme';
import { scrollStop } from './dom';

/** The editor theme's colors (its CSS variables only), so a chart reads in light, dark and high-contrast themes alike.
 * Read at each draw: report.ts draws again when the theme changes. A variable missing falls back to the text's
 * color (`currentColor`, the body's --vscode-foreground), never to a fixed color. */
export function editorTheme(): ChartTheme {
  const css = getComputedStyle(document.body);
  const v = (name: string, fallback = 'currentColor') => css.getPropertyValue(name).trim() || fallback;
  const foreground = v('--vscode-foreground');
  return {
    foreground,
    muted: v('--vscode-descriptionForeground', foreground),
    background: 'transparent',
    surface: v('--vscode-editor-background', 'transparent'),
    font: v('--vscode-font-family', 'sans-serif'),
    series: {
      blue: v('--vscode-charts-blue', foreground),
      orange: v('--vscode-charts-orange', foreground),
      green: v('--vscode-charts-green', foreground),
      red: v('--vscode-charts-red', foreground),
      purple: v('--vscode-charts-purple', foreground),
      yellow: v('--vscode-charts-yellow', foreground),
      lines: v('--vscode-charts-lines', foreground),
    },
  };
}

/** The views drawn for the content now shown; a redraw finalizes them (their listeners and timers go). */
let live: View[] = [];

export function finalizeCharts(): void {
  for (const v of live) v.finalize();
  live = [];
}

/** A placeholder element now, the chart in it once vega has run; `onPick` gets the datum of a clicked mark. */
export function chart(spec: TopLevelSpec, label: string, onPick?: (datum: Record<string, unknown>) => void): HTMLElement {
  const box = document.createElement('div');
  box.className = 'chart';
  box.setAttribute('role', 'figure');
  box.setAttribute('aria-label', label);
  const view = new View(parse(compile(spec).spec, undefined, { ast: true }), {
    renderer: 'svg',
    container: box,
    hover: true,
    expr: expressionInterpreter as never,
  });
  live.push(view);
  if (onPick)
    view.addEventListener('click', (_e, item) => {
      const datum = (item as { datum?: Record<string, unknown> } | null | undefined)?.datum;
      if (datum) onPick(datum);
    });
  view.runAsync().then(
    () => {
      box.setAttribute('data-drawn', 'true');
      // A chart wider than a narrow panel scrolls in its box (report.css .chart): a tab stop then, for the arrows.
      if (box.firstElementChild) scrollStop(box, box.firstElementChild);
    },
    (err: Error) => {
      box.textContent = `Could not draw the chart: ${err.message}`;
      box.className = 'chart error';
    },
  );
  return box;
}
