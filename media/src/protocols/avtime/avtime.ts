// The AVTime report: the six scores (direction × axis), the run's identity, and a per-query trace browser.
// Every value comes computed from the host (core/protocols/avtime/report.ts); this file lays it out, and every
// string from the data is a text node. The browser is made once per panel, so what the reader picked
// survives the redraws a running run causes.
import type {
  AvtimeEventRow,
  AvtimeFact,
  AvtimeInterval,
  AvtimeIntervals,
  AvtimeQueryDetail,
  AvtimeQueryFilter,
  AvtimeQueryList,
  AvtimeReference,
  AvtimeReport,
  AvtimeScoreCell,
} from '../../../../src/core/protocols/avtime/reportTypes';
import { clear, el, fmt, roveKeys, roveStop, scroller, table } from '../../dom';
import { request } from '../../messages';
import type { RendererOf } from '../renderers';

const DIRECTIONS = [
  ['t2e', 'T2E (time → event)'],
  ['e2t', 'E2T (event → time)'],
  ['e2e', 'E2E (event ↔ event)'],
] as const;

export function renderAvtime(r: AvtimeReport): Node {
  const out = el('section', { class: 'avtime' });
  out.appendChild(el('p', { class: 'muted' }, `Run ${r.runId} · ${r.outputRoot} · computed ${r.generatedAt}`));
  out.appendChild(
    el(
      'p',
      {},
      r.canonical === null
        ? el('span', { class: 'muted' }, 'canonical: unknown')
        : el(
            'vscode-badge',
            { id: 'avtime-canonical', title: 'Canonical: fresh target shards, fail closed' },
            r.canonical ? 'canonical' : 'non-canonical (--resume --keep-going)',
          ),
    ),
  );
  out.appendChild(el('h2', {}, 'Scores'));
  if (!r.scored) out.appendChild(el('p', { class: 'muted' }, `No scores yet: eval/${r.runId}/summary.json is not there.`));
  else {
    out.appendChild(scroller(scoreTable(r.scores), 'Scores'));
    out.appendChild(
      r.intervals
        ? scroller(intervalTable(r.intervals), 'Intervals')
        : el('p', { class: 'muted' }, `No intervals: eval/${r.runId}/summary_ci.json is not there.`),
    );
    out.appendChild(
      el('p', {}, el('strong', {}, `${fmt(r.predictionFailures)} prediction failure(s)`), ' (videos with no event line: their queries score 0).'),
    );
    out.appendChild(facts(r.counts, 'avtime-counts'));
  }
  out.appendChild(el('h2', {}, 'Run identity'));
  out.appendChild(r.identity.length ? facts(r.identity, 'avtime-identity') : el('p', { class: 'muted' }, 'No run_config.json yet (it is written last).'));
  out.appendChild(el('h2', {}, `Per-query traces (${fmt(r.traces)})`));
  out.appendChild(traceBrowser(r));
  if (r.problems.length) {
    out.appendChild(el('h2', {}, `Lines that could not be read (${r.problems.length})`));
    out.appendChild(el('ul', {}, ...r.problems.map((p) => el('li', { class: 'error' }, p))));
  }
  return out;
}

function scoreTable(cells: AvtimeScoreCell[]): Node {
  const t = el('table', { class: 'data scores', id: 'avtime-scores' });
  t.appendChild(el('caption', {}, 'Mean query score in [0, 1] per direction × axis (summary.json), queries counted'));
  t.appendChild(
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'direction'),
        el('th', { scope: 'col', class: 'num' }, 'A (audio)'),
        el('th', { scope: 'col', class: 'num' }, 'V (visual)'),
      ),
    ),
  );
  const body = el('tbody');
  for (const [d, label] of DIRECTIONS) {
    const row = el('tr', {}, el('th', { scope: 'row' }, label));
    for (const axis of ['A', 'V'] as const) {
      const c = cells.find((x) => x.direction === d && x.axis === axis);
      row.appendChild(
        el(
          'td',
          { class: 'num', 'data-score': c?.key },
          c ? el('span', {}, el('strong', {}, `${c.key} ${c.score.toFixed(4)}`), el('span', { class: 'muted' }, ` · ${c.queries ?? '?'} queries`)) : '—',
        ),
      );
    }
    body.appendChild(row);
  }
  t.appendChild(body);
  return t;
}

const ci = (x: AvtimeInterval, signed = false) => {
  const f = (v: number) => (signed && v > 0 ? '+' : '') + v.toFixed(3);
  return el('td', { class: 'num' }, el('strong', {}, f(x.estimate)), el('span', { class: 'muted' }, ` [${f(x.lo)}, ${f(x.hi)}]`));
};

/** summary_ci.json: each score with its bootstrap interval over videos, and the paired audio − visual difference. */
function intervalTable(iv: AvtimeIntervals): Node {
  const t = el('table', { class: 'data scores', id: 'avtime-intervals' });
  t.appendChild(
    el(
      'caption',
      {},
      `${Math.round(iv.level * 100)} % intervals: ${iv.method}; ${iv.videos} videos, ${iv.replicates} replicates, seed ${iv.seed} (summary_ci.json)`,
    ),
  );
  const head = ['direction', 'A (audio)', 'V (visual)', 'A − V (paired by video)'];
  t.appendChild(el('thead', {}, el('tr', {}, ...head.map((h, i) => el('th', { scope: 'col', class: i ? 'num' : undefined }, h)))));
  const body = el('tbody');
  for (const row of iv.rows) {
    const label = DIRECTIONS.find(([d]) => d === row.direction)?.[1] ?? row.direction;
    body.appendChild(el('tr', { 'data-direction': row.direction }, el('th', { scope: 'row' }, label), ci(row.A), ci(row.V), ci(row.audioMinusVisual, true)));
  }
  t.appendChild(body);
  return t;
}

function facts(xs: AvtimeFact[], id?: string): Node {
  const dl = el('dl', { class: 'kv', id });
  for (const f of xs) {
    dl.appendChild(el('dt', {}, f.label));
    dl.appendChild(el('dd', {}, f.value));
  }
  return dl;
}

// ---- the trace browser --------------------------------------------------------------------------

interface Browser {
  root: HTMLElement;
  direction: HTMLSelectElement;
  axis: HTMLSelectElement;
  video: HTMLSelectElement;
  text: HTMLInputElement;
  list: HTMLElement;
  detail: HTMLElement;
  selected: string | null;
  videos: string;
}
let browser: Browser | undefined;

function select(id: string, label: string, options: readonly (readonly [string, string])[]): HTMLSelectElement {
  const s = el('select', { id, 'aria-label': label });
  for (const [value, text] of options) s.appendChild(el('option', { value }, text));
  return s;
}

function makeBrowser(): Browser {
  const direction = select('avtime-direction', 'direction', [['', 'all directions'], ...DIRECTIONS]);
  const axis = select('avtime-axis', 'axis', [
    ['', 'both axes'],
    ['A', 'A (audio)'],
    ['V', 'V (visual)'],
  ]);
  const video = select('avtime-video', 'video', [['', 'all videos']]);
  const text = el('input', { id: 'avtime-text', type: 'search', placeholder: 'query id contains…', 'aria-label': 'query id contains' });
  const list = el('div', { id: 'avtime-query-list', 'aria-live': 'polite' });
  // The queries are one tab stop (there can be hundreds): the arrows move between them, Enter shows one's trace.
  roveKeys(list, 'a.query');
  const detail = el('div', { id: 'avtime-query-detail', 'aria-live': 'polite' });
  const root = el(
    'div',
    { class: 'trace-browser' },
    el('div', { class: 'filters' }, direction, ' ', axis, ' ', video, ' ', text),
    el('div', { class: 'panes' }, list, detail),
  );
  const b: Browser = { root, direction, axis, video, text, list, detail, selected: null, videos: '' };
  for (const c of [direction, axis, video]) c.addEventListener('change', () => void refreshList(b));
  text.addEventListener('input', () => void refreshList(b));
  return b;
}

function traceBrowser(r: AvtimeReport): Node {
  browser ??= makeBrowser();
  const b = browser;
  const key = r.videos.join('\n');
  if (key !== b.videos) {
    const keep = b.video.value;
    clear(b.video);
    b.video.appendChild(el('option', { value: '' }, 'all videos'));
    for (const v of r.videos) b.video.appendChild(el('option', { value: v }, v));
    b.video.value = r.videos.includes(keep) ? keep : '';
    b.videos = key;
  }
  void refreshList(b);
  if (b.selected) void showQuery(b, b.selected);
  return b.root;
}

function filterOf(b: Browser): AvtimeQueryFilter {
  const f: AvtimeQueryFilter = {};
  if (b.direction.value) f.direction = b.direction.value as AvtimeQueryFilter['direction'];
  if (b.axis.value) f.axis = b.axis.value as AvtimeQueryFilter['axis'];
  if (b.video.value) f.video = b.video.value;
  if (b.text.value.trim()) f.text = b.text.value.trim();
  return f;
}

async function refreshList(b: Browser): Promise<void> {
  let res: AvtimeQueryList;
  try {
    res = await request('avtimeQueries', filterOf(b));
  } catch (err) {
    clear(b.list);
    b.list.appendChild(el('p', { class: 'error' }, (err as Error).message));
    return;
  }
  clear(b.list);
  b.list.appendChild(
    el(
      'p',
      { class: 'muted' },
      res.total > res.shown.length
        ? `${res.total} queries match; the first ${res.shown.length} are listed.`
        : `${res.total} quer${res.total === 1 ? 'y' : 'ies'} match.`,
    ),
  );
  const t = table(
    [
      { title: 'query', value: (q) => queryLink(b, q.query_id) },
      { title: 'dir', value: (q) => q.direction },
      { title: 'axis', value: (q) => q.axis },
      { title: 'video', value: (q) => q.video_id },
      { title: 'status', value: (q) => q.status },
      { title: 'score', value: (q) => fmt(q.score, 4), numeric: true },
    ],
    res.shown,
  );
  res.shown.forEach((q, i) => q.query_id === b.selected && t.tBodies[0].rows[i].classList.add('focus'));
  b.list.appendChild(scroller(t, 'Queries'));
  // The tab stop: the query shown (queryLink marks it), else the first; a redraw keeps the reader's place in the list.
  roveStop(b.list, 'a.query');
}

function queryLink(b: Browser, id: string): HTMLElement {
  const shown = id === b.selected;
  const a = el('a', { class: 'file query', href: '#', 'data-query': id, title: 'Show this query’s trace', 'data-rove': shown, tabindex: shown ? 0 : -1 }, id);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    b.selected = id;
    for (const row of b.list.querySelectorAll('tr.focus')) row.classList.remove('focus');
    a.closest('tr')?.classList.add('focus');
    void showQuery(b, id);
  });
  return a;
}

async function showQuery(b: Browser, id: string): Promise<void> {
  let d: AvtimeQueryDetail;
  try {
    d = await request('avtimeQuery', { queryId: id });
  } catch (err) {
    clear(b.detail);
    b.detail.appendChild(el('p', { class: 'error' }, (err as Error).message));
    return;
  }
  clear(b.detail);
  const e = d.entry;
  b.detail.appendChild(el('h3', { 'data-query': e.query_id }, `${e.query_id} · ${e.direction.toUpperCase()}-${e.axis} · video ${e.video_id}`));
  b.detail.appendChild(
    el('p', {}, `status ${e.status} · score `, el('strong', {}, fmt(e.score, 4)), d.duration_ms !== null ? ` · D = ${fmt(d.duration_ms)} ms` : ''),
  );
  b.detail.appendChild(el('h4', {}, 'Reference'));
  b.detail.appendChild(reference(d.reference));
  b.detail.appendChild(el('h4', {}, 'Predicted events'));
  b.detail.appendChild(
    d.events === null
      ? el('p', { class: 'muted' }, 'Prediction failure: the target answer had no event line.')
      : scroller(events(d.events), 'Predicted events'),
  );
  b.detail.appendChild(el('h4', {}, 'Judge answer'));
  b.detail.appendChild(judge(d));
  b.detail.appendChild(el('h4', {}, 'Interval arithmetic'));
  b.detail.appendChild(facts(d.arithmetic, 'avtime-arithmetic'));
}

function reference(r: AvtimeReference): Node {
  if (r.direction === 't2e')
    return el(
      'div',
      { class: 'reference' },
      el('p', {}, `At t = ${fmt(r.time_ms)} ms the reference events active on this axis:`),
      el('ul', {}, ...r.captions.map((c) => el('li', {}, c))),
    );
  if (r.direction === 'e2t') return el('div', { class: 'reference' }, el('p', {}, el('q', {}, r.caption), ` at [${r.interval_ms[0]}, ${r.interval_ms[1]}) ms`));
  return el(
    'div',
    { class: 'reference' },
    el(
      'ol',
      { start: 0 },
      ...r.events.map((x, i) => el('li', {}, `event ${i}: `, el('q', {}, x.caption), ` at [${x.interval_ms[0]}, ${x.interval_ms[1]}) ms`)),
    ),
    el('p', {}, `relation: event 0 is `, el('strong', {}, r.relation), ' event 1'),
  );
}

function events(rows: AvtimeEventRow[]): Node {
  if (!rows.length) return el('p', { class: 'muted' }, 'No events.');
  const t = table<AvtimeEventRow>(
    [
      { title: '#', value: (x) => x.index, numeric: true },
      { title: 'start %', value: (x) => x.start_pct, numeric: true },
      { title: 'end %', value: (x) => x.end_pct, numeric: true },
      { title: 'start ms', value: (x) => fmt(x.start_ms), numeric: true },
      { title: 'end ms', value: (x) => fmt(x.end_ms), numeric: true },
      { title: 'caption', value: (x) => x.caption },
      { title: 'used as', value: (x) => (x.marks.length ? el('span', {}, ...x.marks.map((m) => el('vscode-badge', { variant: 'counter' }, m))) : '') },
    ],
    rows,
  );
  rows.forEach((x, i) => x.marks.length && t.tBodies[0].rows[i].classList.add('marked'));
  t.id = 'avtime-events';
  return t;
}

function judge(d: AvtimeQueryDetail): Node {
  if (d.judgeMissing) return el('p', { class: 'error' }, 'The trace names a judge response that is not in semantic_responses.jsonl.');
  const j = d.judge;
  if (!j)
    return el(
      'p',
      { class: 'muted' },
      d.entry.status === 'prediction_failure' ? 'No judge call (prediction failure).' : 'No judge call (no active prediction).',
    );
  return el(
    'div',
    { id: 'avtime-judge' },
    facts([
      { label: 'request', value: `${j.request_type}, pass ${j.pass}` },
      { label: 'model', value: j.model_id },
      { label: 'prompt version', value: j.prompt_version },
      { label: 'response id (request_sha256)', value: j.response_id },
      { label: 'answered', value: j.ts },
    ]),
    el('p', {}, 'Parsed answer:'),
    el('pre', { class: 'log' }, JSON.stringify(j.response, null, 1)),
    el('p', {}, 'Raw text:'),
    el('pre', { class: 'log' }, j.raw),
  );
}

/** AVTime-Bench's renderer by report kind (its report contract's kind). */
export const avtimeRenderers = { avtime: ((r: AvtimeReport) => renderAvtime(r)) as RendererOf<AvtimeReport, Node> };
