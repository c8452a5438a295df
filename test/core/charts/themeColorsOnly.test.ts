// Every chart in the theme's colors only (issue 36 point 5): drawn with a theme whose every color is a marker, the
// findings' and the data report's Vega-Lite specs hold no color of their own (no hex, rgb, named white/black, no
// vega color scheme), so in the webview each comes from VS Code's variables (vegaChart.ts editorTheme) and reads in
// light, dark and high-contrast themes.
import { strict as assert } from 'node:assert';
import type { ChartTheme } from '../../../src/core/charts/chartTheme';
import { ladderPoints } from '../../../src/core/protocols/fp/findings/charts/ladders';
import { ladderSpec, overviewSpec, verdictColors } from '../../../src/core/protocols/fp/findings/charts/specs';
import { binsSpec, eventsSpec, strataSpec } from '../../../src/extension/protocols/avtime/data/dataCharts';
import type { BinBar, StratumCell } from '../../../src/extension/protocols/avtime/data/dataReportTypes';
import { renderSvg } from '../../../src/core/protocols/fp/findings/charts/svg';
import { loadFindingsFixture } from '../protocols/fp/findings/fixture';

const MARKED: ChartTheme = {
  foreground: 'var(--fg)',
  muted: 'var(--muted)',
  background: 'transparent',
  surface: 'var(--surface)',
  font: 'var(--font)',
  series: {
    blue: 'var(--blue)',
    orange: 'var(--orange)',
    green: 'var(--green)',
    red: 'var(--red)',
    purple: 'var(--purple)',
    yellow: 'var(--yellow)',
    lines: 'var(--lines)',
  },
};

/** Colors a spec brings itself: hex, rgb()/hsl(), the names the charts used, or a vega scheme. */
const OWN_COLOR = /#[0-9a-f]{3,8}\b|\b(rgba?|hsla?)\(|"(white|black)"|"scheme"/i;

describe('charts: the theme colors only (issue 36 point 5)', () => {
  it("the findings' overview and ladder charts", () => {
    const f = loadFindingsFixture();
    const specs = [overviewSpec(f, MARKED), ...f.benchmarks.map((b) => ladderSpec(b, ladderPoints(b), MARKED))];
    for (const s of specs) assert.doesNotMatch(JSON.stringify(s), OWN_COLOR);
    assert.equal(new Set(Object.values(verdictColors(MARKED))).size, 8, 'each verdict its own theme color');
  });

  it("the data report's strata, bins and events charts", () => {
    const cells: StratumCell[] = [
      { duration_bin: 0, event_count_bin: 0, rows: 3 },
      { duration_bin: 1, event_count_bin: 0, rows: 9 },
    ];
    const bars: BinBar[] = [
      { axis: 'duration', bin: 0, split: 'train', rows: 5 },
      { axis: 'duration', bin: 0, split: 'test', rows: 2 },
    ];
    const specs = [strataSpec(cells, MARKED), binsSpec(bars, MARKED), eventsSpec([{ events: 1, rows: 4 }], MARKED)];
    for (const s of specs) assert.doesNotMatch(JSON.stringify(s), OWN_COLOR);
    // The strong cells' numbers in the surface's color, the faint ones' in the foreground.
    const ink = (strataSpec(cells, MARKED).data as { values: { rows: number; ink: string }[] }).values.map((c) => c.ink);
    assert.deepEqual(ink, ['var(--fg)', 'var(--surface)']);
  });

  it('each data chart draws: vega-lite compiles it and vega renders it (the strata heatmap did not)', async () => {
    const cells: StratumCell[] = [
      { duration_bin: 0, event_count_bin: 0, rows: 3 },
      { duration_bin: 1, event_count_bin: 2, rows: 9 },
    ];
    const bars: BinBar[] = [{ axis: 'event count', bin: 1, split: 'test', rows: 2 }];
    for (const spec of [strataSpec(cells, MARKED), binsSpec(bars, MARKED), eventsSpec([{ events: 2, rows: 1 }], MARKED)])
      assert.match(await renderSvg(spec), /^<svg/);
  });
});
