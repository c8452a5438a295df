// Lays out each kind of report from the core's report object (src/core/protocols/fp/report/schema.ts, validated by
// the host before it gets here). Nothing is computed here beyond formatting; every string is text.
import type { Report, TimingRow, FailureGroup, Check, LogLine } from '../../../../src/core/protocols/fp/report/schema';
import type { FindingsView } from '../../../../src/core/protocols/fp/findings/charts/viewModel';
import type { CellFocus } from '../../../../src/extension/reports/messages';
import { el, fmt, roveKeys, roveStop, scroller, svg, table } from '../../dom';
import { request } from '../../messages';
import type { RendererOf } from '../renderers';
import { itemLookup, showItem } from './items';
import { renderFindings } from './findings';

/** The package's reports: the same report object, laid out as timing, failures or checks. */
function packageReport(kind: 'timing' | 'failures' | 'checks'): RendererOf<Report, Node> {
  return (r: Report, focus?: CellFocus) => {
    const meta = el('p', { class: 'muted' }, `Package ${r.packageDir} · computed ${r.generatedAt}`);
    const body = kind === 'timing' ? timing(r) : kind === 'failures' ? failures(r, focus) : checks(r);
    return el('section', { class: kind }, meta, body);
  };
}

/** Frames × Pixels' renderers by report kind (its report contract's kinds). */
export const fpRenderers = {
  timing: packageReport('timing'),
  failures: packageReport('failures'),
  checks: packageReport('checks'),
  findings: ((r: FindingsView, _focus, redraw) => renderFindings(r, redraw)) as RendererOf<FindingsView, Node>,
};

function fileLink(file: string, line?: number, label?: string): HTMLElement {
  const a = el('a', { class: 'file', href: '#', title: `Open ${file}${line ? `:${line}` : ''}` }, label ?? (line ? `${file}:${line}` : file));
  a.addEventListener('click', (e) => {
    e.preventDefault();
    void request('openFile', { file, line });
  });
  return a;
}

function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
}

// ---- timing ------------------------------------------------------------------------------------

function timing(r: Report): Node {
  const t = r.timing;
  const out = el('div');
  if (!t.present) {
    out.appendChild(el('p', {}, 'No timing yet: ', fileLink(t.file), ' does not exist. Run the pilot first.'));
    return out;
  }
  out.appendChild(el('p', {}, `${t.lines} timing line(s) over ${t.benchmarks.length} benchmark(s): ${t.benchmarks.join(', ')}.`));
  out.appendChild(el('h2', {}, 'Per condition (seed §4)'));
  out.appendChild(
    scroller(
      table<TimingRow>(
        [
          { title: 'condition', value: (x) => x.condition },
          { title: 'infer', value: (x) => fmt(x.infer), numeric: true },
          { title: 'infer_s/item', value: (x) => fmt(x.infer_s_per_item, 3), numeric: true },
          { title: 'decode_s/item', value: (x) => fmt(x.decode_s_per_item, 3), numeric: true },
          { title: 'prompt_tok/item', value: (x) => fmt(x.prompt_tok_per_item, 0), numeric: true },
          { title: 'infer_s', value: (x) => fmt(x.infer_s, 1), numeric: true },
          { title: 'decode_s', value: (x) => fmt(x.decode_s, 1), numeric: true },
        ],
        t.rows,
      ),
      'Timing per condition',
    ),
  );
  out.appendChild(chart(t.rows));
  out.appendChild(el('h2', {}, "The seed's lines"));
  out.appendChild(el('pre', { class: 'log' }, t.rows.map((x) => x.text).join('\n')));

  out.appendChild(el('h2', {}, 'Where the time went'));
  out.appendChild(el('p', {}, r.bottleneck ? `Run ${r.bottleneck.runId}: ${r.bottleneck.line}` : 'No verdict from the last run.'));
  if (r.bottleneck?.hostCpuLine) out.appendChild(el('p', {}, r.bottleneck.hostCpuLine));
  if (r.bottleneck?.framesLine) out.appendChild(el('p', {}, r.bottleneck.framesLine));
  for (const b of r.bottleneck?.servers ?? []) out.appendChild(el('p', { class: 'muted' }, `Server ${b.index} (${b.endpoint}): ${b.reason}; turn: ${b.knob}`));
  const x = r.extrapolation;
  out.appendChild(el('h2', {}, 'Full run, extrapolated'));
  if (!x.available) {
    out.appendChild(el('p', { class: 'muted' }, x.reason ?? 'Not available.'));
  } else {
    out.appendChild(
      el(
        'p',
        {},
        el('strong', {}, duration(x.estimatedSeconds)),
        ` for ${fmt(x.todoTotal)} requests to do on ${x.servers ?? '?'} server(s) (${x.serversSource}); `,
        `one at a time per server it would be ${duration(x.serialSeconds)}; pilot concurrency ${fmt(x.pilotConcurrency, 1)}.`,
      ),
    );
    out.appendChild(el('p', { class: 'muted' }, x.method));
    if (x.untimedConditions.length) out.appendChild(el('p', { class: 'muted' }, `Not in the estimate (no pilot timing): ${x.untimedConditions.join(', ')}`));
    out.appendChild(
      scroller(
        table(
          [
            { title: 'condition', value: (y: (typeof x.rows)[number]) => y.condition },
            { title: 'todo', value: (y) => fmt(y.todo), numeric: true },
            { title: 's/item', value: (y) => fmt(y.secondsPerItem, 3), numeric: true },
            { title: 'request-seconds', value: (y) => fmt(y.requestSeconds, 0), numeric: true },
          ],
          x.rows,
        ),
        'Full run, per condition',
      ),
    );
  }
  out.appendChild(el('h2', {}, 'Wall time and rows added'));
  out.appendChild(el('p', {}, `Wall time: ${duration(r.wallTime.seconds)} (${r.wallTime.method})`));
  out.appendChild(
    scroller(
      table(
        [
          { title: 'condition', value: (y: (typeof r.rowsAdded.rows)[number]) => y.condition },
          { title: 'ok', value: (y) => fmt(y.ok), numeric: true },
          { title: 'NA', value: (y) => fmt(y.NA), numeric: true },
          { title: 'reuse', value: (y) => fmt(y.reuse), numeric: true },
          { title: 'total', value: (y) => fmt(y.total), numeric: true },
          { title: 'raw records', value: (y) => fmt(y.rawRecords), numeric: true },
        ],
        r.rowsAdded.rows,
        `${fmt(r.rowsAdded.total)} row(s) added${r.rowsAdded.mismatches.length ? `; rows ≠ raw records for ${r.rowsAdded.mismatches.join(', ')}` : ''}`,
      ),
      'Rows added per condition',
    ),
  );
  out.appendChild(el('h2', {}, 'vLLM launch line'));
  out.appendChild(r.launch.present ? el('pre', { class: 'log' }, r.launch.lines.join('\n')) : el('p', { class: 'muted' }, 'No launch recorded yet.'));
  return out;
}

/** Bars of infer_s/item and decode_s/item per condition (SVG built node by node, theme colours). */
function chart(rows: TimingRow[]): Node {
  const max = Math.max(1e-9, ...rows.map((r) => Math.max(r.infer_s_per_item, r.decode_s_per_item)));
  const labelW = 130;
  const barW = 360;
  const rowH = 22;
  const h = rows.length * rowH + 24;
  const root = svg('svg', { class: 'chart', width: labelW + barW + 80, height: h, role: 'img', 'aria-label': 'infer_s/item and decode_s/item per condition' });
  rows.forEach((r, i) => {
    const y = i * rowH + 4;
    root.appendChild(svg('text', { x: 0, y: y + 13 }, r.condition));
    const wi = (r.infer_s_per_item / max) * barW;
    const wd = (r.decode_s_per_item / max) * barW;
    root.appendChild(
      svg('rect', { class: 'bar', x: labelW, y, width: Math.max(1, wi), height: 9 }, svg('title', {}, `infer_s/item ${fmt(r.infer_s_per_item, 3)}`)),
    );
    root.appendChild(
      svg(
        'rect',
        { class: 'bar alt', x: labelW, y: y + 10, width: Math.max(1, wd), height: 7 },
        svg('title', {}, `decode_s/item ${fmt(r.decode_s_per_item, 3)}`),
      ),
    );
    root.appendChild(svg('text', { x: labelW + Math.max(wi, wd) + 6, y: y + 13 }, fmt(r.infer_s_per_item, 3)));
  });
  root.appendChild(svg('line', { class: 'axis', x1: labelW, y1: 0, x2: labelW, y2: h - 20 }));
  root.appendChild(svg('text', { x: labelW, y: h - 6 }, 'blue: infer_s/item · orange: decode_s/item'));
  // Its labels keep their size in a narrow panel: the chart scrolls sideways there.
  return scroller(root, 'Chart: infer_s/item and decode_s/item per condition');
}

// ---- failures ----------------------------------------------------------------------------------

function failures(r: Report, focus?: CellFocus): Node {
  const f = r.failures;
  const out = el('div');
  const kinds = Object.entries(f.byKind);
  out.appendChild(
    el(
      'p',
      {},
      el('strong', {}, `${fmt(f.total)} failure(s)`),
      kinds.length ? ' — ' : '',
      ...kinds.flatMap(([k, n]) => [el('vscode-badge', { variant: 'counter', title: k }, `${k} ${n}`), ' ']),
    ),
  );
  if (!f.present) out.appendChild(el('p', { class: 'muted' }, 'No failures log yet (', fileLink(f.file), ').'));

  if (f.diagnoses.length) {
    out.appendChild(el('h2', {}, `Diagnosis (≥ ${f.diagnosisThreshold} failures in one benchmark × condition)`));
    for (const d of f.diagnoses) {
      const c = el('vscode-collapsible', { title: `${d.benchmark} × ${d.condition}: ${d.failures} failures`, open: true });
      c.appendChild(el('div', { class: 'group-body' }, el('p', {}, d.message), logLines(d.logLines)));
      out.appendChild(c);
    }
  }

  out.appendChild(el('h2', {}, 'By benchmark × condition and kind'));
  if (focus) out.appendChild(el('p', { class: 'muted' }, `Showing ${focus.benchmark} × ${focus.condition} first.`));
  const groups = focus ? [...f.groups].sort((a, b) => Number(isFocus(b, focus)) - Number(isFocus(a, focus))) : f.groups;
  const t = table<FailureGroup>(
    [
      { title: 'benchmark', value: (g) => g.benchmark },
      { title: 'condition', value: (g) => g.condition },
      { title: 'kind', value: (g) => g.kind },
      { title: 'count', value: (g) => fmt(g.count), numeric: true },
      { title: 'example items', value: (g) => itemLinks(g) },
      { title: 'example message', value: (g) => clipped(g.exampleMessage, 240) },
    ],
    groups,
  );
  if (focus) groups.forEach((g, i) => isFocus(g, focus) && t.tBodies[0].rows[i].classList.add('focus'));
  // Without a mouse: the example items' links (2 an item, up to 5 items a group: 85 tab stops on the sample) are one
  // tab stop for the table, the arrows, Home and End move between them; the clipped messages are one more.
  for (const sel of ['a.file', 'button.clipped']) {
    roveStop(t, sel);
    roveKeys(t, sel);
  }
  out.appendChild(groups.length ? scroller(t, 'Failures by benchmark × condition and kind') : el('p', { class: 'muted' }, 'No failures.'));

  if (f.serverLogLines.length) {
    out.appendChild(el('h2', {}, 'Server log lines (OOM, engine death)'));
    out.appendChild(logLines(f.serverLogLines));
  }
  out.appendChild(el('h2', {}, 'Look up an item'));
  out.appendChild(itemLookup(r.timing.benchmarks));
  return out;
}

/**
 * A long message (an ffmpeg error can run to kilobytes) shows its start; the whole text is a button press away (a click,
 * or Enter or Space on it), and the same press or Escape clips it again.
 */
function clipped(text: string, max: number): Node {
  if (text.length <= max) return document.createTextNode(text);
  const short = `${text.slice(0, max)}… (${text.length} chars)`;
  const b = el('button', { type: 'button', class: 'clipped', 'aria-expanded': 'false', title: 'Show the whole message' }, short);
  const open = (yes: boolean) => {
    b.textContent = yes ? text : short;
    b.setAttribute('aria-expanded', String(yes));
    b.title = yes ? 'Show the start only (Escape)' : 'Show the whole message';
  };
  b.addEventListener('click', () => open(b.getAttribute('aria-expanded') !== 'true'));
  b.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && b.getAttribute('aria-expanded') === 'true') {
      e.stopPropagation();
      open(false);
    }
  });
  return b;
}

function isFocus(g: FailureGroup, f: CellFocus): boolean {
  return g.benchmark === f.benchmark && g.condition === f.condition;
}

function itemLinks(g: FailureGroup): Node {
  const span = el('span');
  g.exampleItemIds.forEach((id, i) => {
    if (i) span.appendChild(document.createTextNode(', '));
    const a = el('a', { class: 'file', href: '#', title: 'Show this item' }, id);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      void showItem(g.benchmark, id);
    });
    // The item inspector: what this condition sent and got back, beside the item's other conditions.
    const inspect = el(
      'a',
      { class: 'file inspect', href: '#', title: `Inspect ${id}: frames, prompt and replies, ${g.condition} first`, 'data-item': id },
      '⧉',
    );
    inspect.addEventListener('click', (e) => {
      e.preventDefault();
      void request('inspectItem', { benchmark: g.benchmark, itemId: id, condition: g.condition });
    });
    span.append(a, ' ', inspect);
  });
  return span;
}

function logLines(lines: LogLine[]): Node {
  const pre = el('pre', { class: 'log' });
  for (const l of lines) {
    pre.appendChild(fileLink(l.file, l.line, `${l.file.split('/').pop()}:${l.line}`));
    pre.appendChild(document.createTextNode(`  ${l.text}\n`));
  }
  return pre;
}

// ---- checks ------------------------------------------------------------------------------------

function checks(r: Report): Node {
  const out = el('div');
  const failed = r.checks.filter((c) => c.status === 'fail').length;
  out.appendChild(
    el(
      'p',
      {},
      el('strong', { class: failed ? 'fail' : 'pass' }, failed ? `${failed} check(s) fail` : 'No check fails'),
      ` — ${r.checks.length} checks (SPEC §6).`,
    ),
  );
  out.appendChild(
    scroller(
      table<Check>(
        [
          {
            title: 'status',
            value: (c) =>
              el(
                'span',
                { class: c.status === 'fail' ? 'fail' : c.status === 'pass' ? 'pass' : 'muted' },
                c.status === 'pass' ? '✓ pass' : c.status === 'fail' ? '✗ fail' : '– skip',
              ),
          },
          { title: 'check', value: (c) => c.title },
          { title: 'detail', value: (c) => c.detail },
          { title: 'checked', value: (c) => fmt(c.checked), numeric: true },
          { title: 'violations', value: (c) => fmt(c.violations), numeric: true },
          {
            title: 'examples',
            value: (c) =>
              c.examples.length ? el('ul', {}, ...c.examples.map((x) => el('li', {}, `${x.benchmark} × ${x.condition} · ${x.item_id}: ${x.detail}`))) : '—',
          },
        ],
        r.checks,
      ),
      'Checks',
    ),
  );
  out.appendChild(el('p', { class: 'muted' }, `${fmt(r.rawRecords.records)} raw record(s) in ${fmt(r.rawRecords.files)} file(s) read.`));
  if (r.problems.length) {
    out.appendChild(el('h2', {}, `Problems in the package's files (${r.problemCount})`));
    const ul = el('ul');
    for (const p of r.problems) ul.appendChild(el('li', {}, fileLink(p.file, p.line), `: ${p.message}`));
    out.appendChild(ul);
  }
  return out;
}
