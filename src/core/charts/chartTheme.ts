// The colors and fonts every run type's Vega-Lite charts are drawn in (the findings' and AVTime's data reports'):
// one theme type, one config, so a webview draws each chart in the editor's colors and a report file in black on
// white. Pure, types only from vega-lite: the webview bundle imports it.
import type { TopLevelSpec } from 'vega-lite';

/** The series colors: in the webview VS Code's own chart colors (--vscode-charts-*, which each theme sets, the
 * high-contrast ones too), in a report file a colorblind-safe Tableau-like set. */
export interface SeriesColors {
  blue: string;
  orange: string;
  green: string;
  red: string;
  purple: string;
  yellow: string;
  /** Neutral lines and marks (--vscode-charts-lines). */
  lines: string;
}

/** Colors a chart is drawn in: the editor theme in the webview, black on white in the report. */
export interface ChartTheme {
  foreground: string;
  muted: string;
  background: string;
  /** What the chart sits on (the editor's background): the light end of a sequential scale. */
  surface: string;
  font: string;
  series: SeriesColors;
}

export const REPORT_THEME: ChartTheme = {
  foreground: '#1f2328',
  muted: '#6e7781',
  background: 'white',
  surface: 'white',
  font: 'sans-serif',
  series: { blue: '#4e79a7', orange: '#f28e2b', green: '#59a14f', red: '#e15759', purple: '#b07aa1', yellow: '#edc948', lines: '#76b7b2' },
};

/** The spec's `config` for a theme: axes, legends, titles and text in its colors. */
export function chartConfig(t: ChartTheme): TopLevelSpec['config'] {
  return {
    background: t.background,
    font: t.font,
    view: { stroke: t.muted },
    axis: { labelColor: t.foreground, titleColor: t.foreground, domainColor: t.muted, tickColor: t.muted, gridColor: t.muted, gridOpacity: 0.25 },
    legend: { labelColor: t.foreground, titleColor: t.foreground },
    title: { color: t.foreground, subtitleColor: t.muted, anchor: 'start' },
    text: { color: t.foreground },
  };
}
