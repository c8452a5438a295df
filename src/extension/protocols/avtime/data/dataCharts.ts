// The data report's charts as Vega-Lite specs (drawn by the webview with vega, as the findings' are): the split's
// 5×5 strata as a heatmap, train and test per bin as grouped bars, events per row as a histogram. Pure: the view's
// numbers in, a spec out; text from the data goes into data values only, never into expressions.
import type { TopLevelSpec } from 'vega-lite';
import { chartConfig, REPORT_THEME, type ChartTheme } from '../../../../core/charts/chartTheme';
import type { BinBar, EventsBar, StratumCell } from './dataReportTypes';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const splitColors = (t: ChartTheme) => ({ domain: ['train', 'test'], range: [t.series.blue, t.series.orange] });

/** The test set's strata: duration bin (rows) × event-count bin (columns), rows per cell as color and number. */
export function strataSpec(cells: readonly StratumCell[], theme: ChartTheme = REPORT_THEME): TopLevelSpec {
  const max = Math.max(0, ...cells.map((c) => c.rows));
  const x = { field: 'event_count_bin', type: 'ordinal' as const, title: 'event-count bin (fewer → more events)', axis: { labelAngle: 0 } };
  const y = { field: 'duration_bin', type: 'ordinal' as const, title: 'duration bin (shorter → longer)' };
  return {
    $schema: SCHEMA,
    title: { text: 'Test set by stratum', subtitle: `5 × 5 strata (duration bin × event-count bin), ${cells.reduce((n, c) => n + c.rows, 0)} rows` },
    width: 300,
    height: 300,
    config: chartConfig(theme),
    // The number's ink in the data, not an expression: the surface's color on the strong half of the scale (surface →
    // the theme's blue), the foreground on the faint half, so it reads in light, dark and high-contrast themes.
    data: { values: cells.map((c) => ({ ...c, ink: c.rows > max / 2 ? theme.surface : theme.foreground })) },
    // The cells' color scale and the numbers' ink (its colors as they are, scale null) are two scales: shared, as
    // vega-lite resolves layers by default, the null one broke the compile ("reading 'type'") and nothing drew.
    resolve: { scale: { color: 'independent' } },
    layer: [
      {
        mark: { type: 'rect', stroke: theme.muted, strokeWidth: 0.5 },
        encoding: {
          x,
          y,
          color: { field: 'rows', type: 'quantitative', title: 'rows', scale: { range: [theme.surface, theme.series.blue], domain: [0, Math.max(1, max)] } },
          tooltip: [
            { field: 'duration_bin', title: 'duration bin' },
            { field: 'event_count_bin', title: 'event-count bin' },
            { field: 'rows', title: 'rows' },
          ],
        },
      },
      {
        mark: { type: 'text', fontSize: 11 },
        encoding: {
          x,
          y,
          text: { field: 'rows', type: 'quantitative' },
          color: { field: 'ink', type: 'nominal', scale: null },
        },
      },
    ],
  };
}

/**
 * Train and test per bin, one panel per axis (duration, event count), as each split's share of its rows: a test set
 * of 300 beside a train set of 49,677 is compared by its shape, not its size (the rows are in the tooltip).
 */
export function binsSpec(bars: readonly BinBar[], theme: ChartTheme = REPORT_THEME): TopLevelSpec {
  const total = (b: BinBar) => bars.filter((x) => x.split === b.split && x.axis === b.axis).reduce((n, x) => n + x.rows, 0);
  return {
    $schema: SCHEMA,
    title: { text: 'Rows per bin', subtitle: "train and test, each axis binned at the cut points: each split's share of its rows" },
    config: chartConfig(theme),
    data: { values: bars.map((b) => ({ ...b, share: total(b) ? b.rows / total(b) : 0 })) },
    facet: { column: { field: 'axis', type: 'nominal', title: null, sort: ['duration', 'event count'] } },
    spec: {
      width: 220,
      height: 180,
      mark: 'bar',
      encoding: {
        x: { field: 'bin', type: 'ordinal', title: 'bin', axis: { labelAngle: 0 } },
        xOffset: { field: 'split', sort: ['train', 'test'] },
        y: { field: 'share', type: 'quantitative', title: 'share of the split', axis: { format: '.0%' } },
        color: { field: 'split', type: 'nominal', title: 'split', scale: splitColors(theme) },
        tooltip: [{ field: 'axis' }, { field: 'bin' }, { field: 'split' }, { field: 'rows' }, { field: 'share', format: '.1%' }],
      },
    },
  };
}

/** Rows per number of events (every count from the least to the most, empty ones at 0). */
export function eventsSpec(bars: readonly EventsBar[], theme: ChartTheme = REPORT_THEME): TopLevelSpec {
  const filled: EventsBar[] = [];
  if (bars.length) {
    const by = new Map(bars.map((b) => [b.events, b.rows]));
    for (let n = bars[0].events; n <= bars[bars.length - 1].events; n++) filled.push({ events: n, rows: by.get(n) ?? 0 });
  }
  return {
    $schema: SCHEMA,
    title: { text: 'Events per row', subtitle: `${filled.reduce((n, b) => n + b.rows, 0)} rows` },
    width: 460,
    height: 200,
    config: chartConfig(theme),
    data: { values: filled.map((b) => ({ ...b })) },
    mark: { type: 'bar', color: theme.series.blue },
    encoding: {
      x: { field: 'events', type: 'ordinal', title: 'events in the row', axis: { labelAngle: 0 } },
      y: { field: 'rows', type: 'quantitative', title: 'rows' },
      tooltip: [{ field: 'events' }, { field: 'rows' }],
    },
  };
}
