// The colors and fonts every run type's Vega-Lite charts are drawn in (the findings' and AVTime's data reports'):
// one theme type, one config, so a webview draws each chart in the editor's colors and a report file in black on
// white. Pure, types only from vega-lite: the webview bundle imports it.
import type { TopLevelSpec } from 'vega-lite';

/** Colors a chart is drawn in: the editor theme in the webview, black on white in the report. */
export interface ChartTheme {
  foreground: string;
  muted: string;
  background: string;
  font: string;
}

export const REPORT_THEME: ChartTheme = { foreground: '#1f2328', muted: '#6e7781', background: 'white', font: 'sans-serif' };

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
