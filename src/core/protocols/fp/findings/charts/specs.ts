// The findings charts as Vega-Lite specs: ONE module for the webview (drawn with vega in the browser) and the
// report's SVG files (drawn with vega in Node, svg.ts). Pure: data in, JSON spec out; nothing is computed here
// beyond laying the findings out. Only type imports, so the webview bundle pulls in no zod and no Node.
// Text from the data (benchmark names) goes into data values only, never into expressions; vega writes it as text.
import type { TopLevelSpec } from 'vega-lite';
import type { BenchmarkFindings, Findings, Verdict } from '../types';
import type { LadderPoint } from './viewModel';
import { chartConfig, REPORT_THEME, type ChartTheme } from '../../../../charts/chartTheme';

/** One color per verdict, from the theme's series colors, in a fixed order so legends agree across charts. */
export function verdictColors(theme: ChartTheme = REPORT_THEME): Readonly<Record<Verdict, string>> {
  const c = theme.series;
  return {
    pixels: c.blue,
    frames: c.orange,
    both: c.green,
    neither: c.lines,
    'blind-solvable': c.purple,
    hurts: c.red,
    inconclusive: c.yellow,
    pending: theme.muted,
  };
}

const ladderColors = (theme: ChartTheme) => ({ resolution: theme.series.blue, 'frame count': theme.series.orange, 'frame rate': theme.series.green });

/** A row of the overview: one benchmark with both tested contrasts measured. */
export interface OverviewRow {
  benchmark: string;
  verdict: Verdict;
  pixels: number;
  pixelsLo: number;
  pixelsHi: number;
  frames: number;
  framesLo: number;
  framesHi: number;
  why: string;
}

/** The overview's rows: benchmarks whose pixels and frames contrasts both have Δ and an interval (others are pending, listed apart). */
export function overviewRows(f: Findings): OverviewRow[] {
  const out: OverviewRow[] = [];
  for (const b of f.benchmarks) {
    const p = b.contrasts.pixels;
    const r = b.contrasts.frames;
    if (p.delta === null || p.lo === null || p.hi === null || r.delta === null || r.lo === null || r.hi === null) continue;
    out.push({
      benchmark: b.benchmark,
      verdict: b.verdict,
      pixels: p.delta,
      pixelsLo: p.lo,
      pixelsHi: p.hi,
      frames: r.delta,
      framesLo: r.lo,
      framesHi: r.hi,
      why: b.why,
    });
  }
  return out;
}

/** Half the axis span: every interval fits, and at least 2δ so the regions show. */
export function overviewExtent(rows: readonly OverviewRow[], delta: number): number {
  const m = Math.max(2 * delta, ...rows.flatMap((r) => [r.pixelsLo, r.pixelsHi, r.framesLo, r.framesHi].map(Math.abs)));
  return Math.ceil(m * 1.1);
}

/** `pixels` Δ against `frames` Δ per benchmark, with 95 % interval crosses, over the regions each verdict needs (±δ). */
export function overviewSpec(f: Findings, theme: ChartTheme = REPORT_THEME): TopLevelSpec {
  const rows = overviewRows(f);
  const VERDICT_COLORS = verdictColors(theme);
  const d = f.delta_pts;
  const L = overviewExtent(rows, d);
  const regions = [
    { verdict: 'pixels', x: d, x2: L, y: -d, y2: d, label: 'pixels' },
    { verdict: 'frames', x: -d, x2: d, y: d, y2: L, label: 'frames' },
    { verdict: 'both', x: d, x2: L, y: d, y2: L, label: 'both' },
    { verdict: 'neither', x: -d, x2: d, y: -d, y2: d, label: `neither (±${d})` },
  ].map((r) => ({ ...r, fill: VERDICT_COLORS[r.verdict as Verdict] }));
  const domain = [-L, L];
  const x = { field: 'pixels', type: 'quantitative', title: 'pixels Δ (v_32_s448 − v_32_s168), points', scale: { domain, nice: false, zero: false } } as const;
  const y = { field: 'frames', type: 'quantitative', title: 'frames Δ (v_128_s224 − v_8_s224), points', scale: { domain, nice: false, zero: false } } as const;
  const color = {
    field: 'verdict',
    type: 'nominal',
    title: 'verdict',
    scale: { domain: Object.keys(VERDICT_COLORS), range: Object.values(VERDICT_COLORS) },
  } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    // Short subtitle lines: headless vega estimates text widths generously and sizes the SVG by them.
    title: {
      text: 'Pixels or frames?',
      subtitle: ['Δ per benchmark, 95 % intervals', `regions at ±δ = ${d} points; ${rows.length} of ${f.benchmarks.length} measured`],
    },
    width: 460,
    height: 460,
    config: chartConfig(theme),
    layer: [
      {
        data: { values: regions },
        mark: { type: 'rect', opacity: 0.12, clip: true },
        encoding: {
          x: { field: 'x', type: 'quantitative', scale: { domain, nice: false, zero: false }, title: x.title },
          x2: { field: 'x2' },
          y: { field: 'y', type: 'quantitative', scale: { domain, nice: false, zero: false }, title: y.title },
          y2: { field: 'y2' },
          // The color itself (no scale): the legend shows the points' colors, not the faint regions'.
          fill: { field: 'fill', type: 'nominal', scale: null },
        },
      },
      {
        data: { values: regions },
        mark: { type: 'text', align: 'right', baseline: 'top', dx: -4, dy: 4, fontSize: 10, color: theme.muted },
        encoding: { x: { field: 'x2', type: 'quantitative' }, y: { field: 'y2', type: 'quantitative' }, text: { field: 'label' } },
      },
      {
        data: { values: [{ v: 0 }] },
        mark: { type: 'rule', color: theme.muted, strokeDash: [2, 2] },
        encoding: { x: { field: 'v', type: 'quantitative' } },
      },
      {
        data: { values: [{ v: 0 }] },
        mark: { type: 'rule', color: theme.muted, strokeDash: [2, 2] },
        encoding: { y: { field: 'v', type: 'quantitative' } },
      },
      {
        data: { values: rows },
        layer: [
          { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x: { field: 'pixelsLo', type: 'quantitative' }, x2: { field: 'pixelsHi' }, y, color } },
          { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y: { field: 'framesLo', type: 'quantitative' }, y2: { field: 'framesHi' }, x, color } },
          {
            mark: { type: 'point', filled: true, size: 60, cursor: 'pointer' },
            encoding: {
              x,
              y,
              color,
              tooltip: [
                { field: 'benchmark', title: 'benchmark' },
                { field: 'verdict', title: 'verdict' },
                { field: 'pixels', title: 'pixels Δ', format: '.1f' },
                { field: 'frames', title: 'frames Δ', format: '.1f' },
                { field: 'why', title: 'why' },
              ],
            },
          },
          { mark: { type: 'text', align: 'left', dx: 6, dy: -6, fontSize: 9 }, encoding: { x, y, text: { field: 'benchmark' } } },
        ],
      },
    ],
  } as TopLevelSpec;
}

/** One benchmark's accuracy against visual tokens for each ladder, with Wilson bands and the blind and chance lines. */
export function ladderSpec(b: BenchmarkFindings, points: readonly LadderPoint[], theme: ChartTheme = REPORT_THEME, tokenNote = ''): TopLevelSpec {
  const blind = b.cells['v_blind'];
  // The blind label sits above its line and the chance label below its own: close lines never overprint.
  const refs: { label: string; value: number; dash: number[]; baseline: 'bottom' | 'top'; dy: number }[] = [];
  if (blind?.acc !== null && blind?.acc !== undefined)
    refs.push({ label: `blind ${blind.acc.toFixed(1)}`, value: blind.acc, dash: [6, 3], baseline: 'bottom', dy: -2 });
  if (b.chance !== null) refs.push({ label: `chance ${b.chance.toFixed(1)}`, value: b.chance, dash: [2, 2], baseline: 'top', dy: 2 });
  const x = {
    field: 'tokens',
    type: 'quantitative',
    scale: { type: 'log', nice: false, padding: 12 },
    title: 'visual tokens per request (estimated, log scale)',
  } as const;
  const yScale = { domain: [0, 100] };
  const LADDER_COLORS = ladderColors(theme);
  const color = {
    field: 'ladder',
    type: 'nominal',
    title: 'ladder',
    scale: { domain: Object.keys(LADDER_COLORS), range: Object.values(LADDER_COLORS) },
  } as const;
  const layers: unknown[] = [
    {
      mark: { type: 'area', opacity: 0.15 },
      encoding: { x, y: { field: 'lo', type: 'quantitative', scale: yScale }, y2: { field: 'hi' }, fill: { field: 'fill', type: 'nominal', scale: null } },
    },
    {
      mark: { type: 'line', strokeWidth: 2 },
      encoding: { x, y: { field: 'acc', type: 'quantitative', scale: yScale, title: 'accuracy, %' }, color, order: { field: 'order' } },
    },
    {
      mark: { type: 'point', filled: true, size: 40 },
      encoding: {
        x,
        y: { field: 'acc', type: 'quantitative', scale: yScale },
        color,
        tooltip: [
          { field: 'condition', title: 'condition' },
          { field: 'acc', title: 'accuracy', format: '.1f' },
          { field: 'lo', title: 'Wilson lo', format: '.1f' },
          { field: 'hi', title: 'Wilson hi', format: '.1f' },
          { field: 'n', title: 'n' },
          { field: 'tokens', title: 'visual tokens', format: ',.0f' },
        ],
      },
    },
  ];
  if (refs.length) {
    layers.push({
      data: { values: refs },
      layer: [
        {
          mark: { type: 'rule', color: theme.muted },
          encoding: { y: { field: 'value', type: 'quantitative', scale: yScale }, strokeDash: { field: 'dash', type: 'nominal', scale: null, legend: null } },
        },
        ...refs.map((r) => ({
          data: { values: [r] },
          mark: { type: 'text', align: 'left', baseline: r.baseline, x: 2, dy: r.dy, fontSize: 10, color: theme.muted },
          encoding: { y: { field: 'value', type: 'quantitative' }, text: { field: 'label' } },
        })),
      ],
    });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: b.benchmark, subtitle: [`verdict: ${b.verdict}`, ...(tokenNote ? [tokenNote] : [])] },
    width: 420,
    height: 260,
    config: chartConfig(theme),
    data: { values: points.map((p) => ({ ...p, fill: LADDER_COLORS[p.ladder] })) },
    layer: layers,
  } as TopLevelSpec;
}
