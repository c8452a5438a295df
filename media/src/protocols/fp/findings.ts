// The findings webview: the overview (pixels Δ against frames Δ), a verdict table, one benchmark's card (its
// ladders chart, contrast table, verdict and reason, ladder flags) and the drill-down to the items that flip
// on a contrast. Every number comes from the host (core/protocols/fp/findings); the charts' specs come from
// the one module the report's SVG files use too. Every string from the data is a text node or SVG text.
import type { BenchmarkFindings, Contrast, ContrastName, Flip } from '../../../../src/core/protocols/fp/findings/types';
import type { FindingsView } from '../../../../src/core/protocols/fp/findings/charts/viewModel';
import { ladderSpec, overviewSpec, verdictColors } from '../../../../src/core/protocols/fp/findings/charts/specs';
import { clear, el, fmt, roveKeys, roveStop, scroller, table } from '../../dom';
import { request } from '../../messages';
import { chart, editorTheme, finalizeCharts } from '../../vegaChart';

// Kept here, not in the DOM: a running sweep redraws the panel every few seconds, and the reader's pick stays.
let picked: string | undefined;
let drillContrast: ContrastName = 'pixels';
/** Contrast names and their conditions, as the findings define them (types.ts CONTRASTS; repeated to keep zod out of the bundle). */
const CONTRASTS: readonly [ContrastName, string, string][] = [
  ['pixels', 'v_32_s448', 'v_32_s168'],
  ['frames', 'v_128_s224', 'v_8_s224'],
  ['video', 'v_32', 'v_blind'],
  ['temporal', 'v_32', 'v_1'],
];

export function renderFindings(v: FindingsView, redraw: () => void): Node {
  finalizeCharts();
  const f = v.findings;
  const theme = editorTheme();
  const out = el('section', { class: 'findings' });
  out.appendChild(el('p', { class: 'muted' }, `Package ${v.packageDir} · computed ${v.generatedAt} · δ = ${f.delta_pts} points, α = ${f.alpha}`));
  if (!f.benchmarks.length) {
    out.appendChild(el('p', {}, 'No results yet: the findings fill in as the sweep writes rows.'));
    return out;
  }
  if (!picked || !f.benchmarks.some((b) => b.benchmark === picked)) picked = f.benchmarks[0].benchmark;
  const pick = (name: unknown) => {
    if (typeof name !== 'string' || name === picked) return;
    picked = name;
    redraw();
  };

  out.appendChild(el('h2', {}, 'Overview'));
  out.appendChild(chart(overviewSpec(f, theme), 'pixels Δ against frames Δ per benchmark', (d) => pick(d.benchmark)));
  out.appendChild(scroller(verdictTable(f.benchmarks, pick), 'Verdicts per benchmark'));

  const b = f.benchmarks.find((x) => x.benchmark === picked)!;
  out.appendChild(card(b, v, theme));
  return out;
}

function signed(n: number | null, digits = 1): string {
  return n === null ? '—' : `${n > 0 ? '+' : ''}${n.toFixed(digits)}`;
}

function interval(c: Contrast): string {
  return c.lo === null || c.hi === null ? '—' : `[${signed(c.lo)}, ${signed(c.hi)}]`;
}

function verdictBadge(verdict: string): HTMLElement {
  const badge = el('span', { class: 'verdict', 'data-verdict': verdict }, verdict);
  // CSSOM, not a style attribute: the CSP allows no inline style markup.
  badge.style.borderColor = (verdictColors(editorTheme()) as Record<string, string>)[verdict] ?? 'currentColor';
  return badge;
}

function verdictTable(rows: BenchmarkFindings[], pick: (name: string) => void): Node {
  const link = (b: BenchmarkFindings) => {
    const on = b.benchmark === picked;
    // The picked benchmark's link is the table's one tab stop (a real package has 84 benchmarks): roveStop below.
    const a = el('a', { href: '#', class: on ? 'bench picked' : 'bench', 'data-rove': on ? 'a.bench' : undefined }, b.benchmark);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      pick(b.benchmark);
    });
    return a;
  };
  const t = table<BenchmarkFindings>(
    [
      { title: 'benchmark', value: link },
      { title: 'verdict', value: (b) => verdictBadge(b.verdict) },
      { title: 'pixels Δ', value: (b) => signed(b.contrasts.pixels.delta), numeric: true },
      { title: '95 % CI', value: (b) => interval(b.contrasts.pixels) },
      { title: 'frames Δ', value: (b) => signed(b.contrasts.frames.delta), numeric: true },
      { title: '95 % CI', value: (b) => interval(b.contrasts.frames) },
      { title: 'why', value: (b) => b.why },
    ],
    rows,
    'Pick a benchmark (here or on the chart) for its card.',
  );
  // Without a mouse: the benchmarks' links are one tab stop, at the picked one; the arrows, Home and End move between
  // them, Enter picks.
  roveStop(t, 'a.bench');
  roveKeys(t, 'a.bench');
  return t;
}

function card(b: BenchmarkFindings, v: FindingsView, theme: ReturnType<typeof editorTheme>): Node {
  const out = el('article', { class: 'card', id: 'findings-card', 'data-benchmark': b.benchmark });
  out.appendChild(el('h2', {}, b.benchmark, ' ', verdictBadge(b.verdict)));
  out.appendChild(el('p', { class: 'why' }, b.why));
  const points = v.ladders[b.benchmark] ?? [];
  out.appendChild(
    points.length
      ? chart(ladderSpec(b, points, theme, ''), `${b.benchmark}: accuracy against visual tokens per ladder`)
      : el('p', { class: 'muted' }, 'No ladder step answered yet.'),
  );
  out.appendChild(el('p', { class: 'muted' }, `Bands: Wilson 95 % intervals. ${v.tokenNote}. Chance ${fmt(b.chance, 1)} %.`));
  for (const flag of b.flags ?? [])
    out.appendChild(el('p', { class: 'flag' }, `⚠ ${flag.condition} ≈ ${flag.same_as} (${flag.kind}, ${fmt(flag.items)} items): ${flag.message}`));
  out.appendChild(scroller(contrastTable(b), `${b.benchmark}: paired contrasts`));
  out.appendChild(drillDown(b));
  return out;
}

function contrastTable(b: BenchmarkFindings): Node {
  const rows = CONTRASTS.map(([name, first, second]) => ({ name, first, second, c: b.contrasts[name as keyof BenchmarkFindings['contrasts']] }));
  return table<(typeof rows)[number]>(
    [
      { title: 'contrast', value: (r) => r.name },
      { title: 'conditions', value: (r) => `${r.first} − ${r.second}` },
      { title: 'pairs', value: (r) => fmt(r.c.n), numeric: true },
      { title: 'b', value: (r) => fmt(r.c.b), numeric: true },
      { title: 'c', value: (r) => fmt(r.c.c), numeric: true },
      { title: 'Δ', value: (r) => signed(r.c.delta), numeric: true },
      { title: '95 % CI', value: (r) => interval(r.c) },
      { title: 'McNemar p', value: (r) => (r.c.p === null ? '—' : r.c.p.toPrecision(2)), numeric: true },
      { title: 'BH q', value: (r) => (r.c.q === null ? '—' : r.c.q.toPrecision(2)), numeric: true },
      { title: 'MDE', value: (r) => (r.c.mde === null ? '—' : r.c.mde.toFixed(1)), numeric: true },
    ],
    rows,
    'Paired contrasts on the items with both conditions answered (Δ and MDE in points; b: first right, second wrong; c: the other way).',
  );
}

function drillDown(b: BenchmarkFindings): Node {
  const out = el('div', { class: 'drill', id: 'findings-drill' });
  const head = el('div', { class: 'drill-head' }, el('h3', {}, 'Items that flip'));
  const body = el('div', { class: 'drill-body' });
  for (const [name, first, second] of CONTRASTS) {
    const button = el('vscode-button', { secondary: name !== drillContrast, 'data-contrast': name, title: `${first} against ${second}` }, name);
    button.addEventListener('click', () => {
      drillContrast = name;
      for (const x of head.querySelectorAll('vscode-button')) x.toggleAttribute('secondary', x.getAttribute('data-contrast') !== name);
      void showFlips(body, b.benchmark, name);
    });
    head.appendChild(button);
  }
  out.appendChild(head);
  out.appendChild(body);
  void showFlips(body, b.benchmark, drillContrast);
  return out;
}

async function showFlips(body: HTMLElement, benchmark: string, contrast: ContrastName): Promise<void> {
  clear(body);
  body.appendChild(el('p', { class: 'muted' }, 'Loading…'));
  let flips: Flip[];
  try {
    flips = await request('findingsFlips', { benchmark, contrast });
  } catch (err) {
    clear(body);
    body.appendChild(el('p', { class: 'error' }, (err as Error).message));
    return;
  }
  clear(body);
  const [, first, second] = CONTRASTS.find((c) => c[0] === contrast)!;
  if (!flips.length) {
    body.appendChild(el('p', { class: 'muted' }, `No item flips between ${first} and ${second} (or the findings carry no item rows).`));
    return;
  }
  // The contrast's two conditions first, then the rest by name.
  const others = [...new Set(flips.flatMap((x) => Object.keys(x.answers)))].filter((c) => c !== first && c !== second).sort();
  const conditions = [first, second, ...others];
  const answerCell = (f: Flip, c: string) => {
    const a = f.answers[c];
    if (!a) return el('span', { class: 'muted' }, '—');
    if (a.status !== 'ok') return el('span', { class: 'muted', title: a.pred ? `copied answer ${a.pred}` : undefined }, a.status);
    const mark = a.correct === null ? '?' : a.correct ? '✓' : '✗';
    return el('span', { class: a.correct ? 'pass' : 'fail', 'data-condition': c }, `${mark} ${a.pred}`);
  };
  body.appendChild(
    scroller(
      table<Flip>(
        [
          { title: 'item', value: (f) => inspectLink(benchmark, f.item_id, contrast) },
          { title: 'video', value: (f) => f.video_id ?? '—' },
          { title: 'answer', value: (f) => f.answer },
          { title: 'flip', value: (f) => (f.first_right ? `${first} right` : `${second} right`) },
          ...conditions.map((c) => ({ title: c, value: (f: Flip) => answerCell(f, c) })),
        ],
        flips,
        `${flips.length} item(s) right under one of ${first} and ${second} and wrong under the other; every condition's answer.`,
      ),
      `Items that flip between ${first} and ${second}`,
    ),
  );
}

/** The item's id, opening the item inspector on it with the contrast's two conditions side by side. */
function inspectLink(benchmark: string, itemId: string, contrast: ContrastName): HTMLElement {
  const a = el('a', { class: 'file inspect', href: '#', title: 'Inspect: the frames, prompt and replies of both conditions', 'data-item': itemId }, itemId);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    void request('inspectFlip', { benchmark, itemId, contrast });
  });
  return a;
}
