// The AVTime data report (a split, build-sft's or build-grpo's report): counts, the charts (the split's strata
// heatmap and bins, events per row) and every file with its sha256. The host made the model from the files
// (src/extension/protocols/avtime/data/); the chart specs come from dataCharts.ts. Every string from the data is a
// text node or SVG text.
import { binRanges, msAsSeconds } from '../../../../src/extension/protocols/avtime/data/binRanges';
import { binsSpec, eventsSpec, strataSpec } from '../../../../src/extension/protocols/avtime/data/dataCharts';
import type { BuildReportView, DataReportView, HashedFile, SplitReportView } from '../../../../src/extension/protocols/avtime/data/dataReportTypes';
import { el, fmt, table } from '../../dom';
import { chart, editorTheme, finalizeCharts } from '../../vegaChart';
import type { RendererOf } from '../renderers';

function filesTable(files: readonly HashedFile[]): Node {
  return table<HashedFile>(
    [
      { title: 'file', value: (f) => f.name },
      { title: 'path', value: (f) => el('code', {}, f.path) },
      { title: 'rows', value: (f) => (f.rows === null ? '—' : fmt(f.rows)), numeric: true },
      { title: 'sha256', value: (f) => el('code', { class: 'hash' }, f.sha256) },
    ],
    [...files],
    'Files and hashes',
  );
}

function pairs(rows: readonly { name: string; value: string | number }[], caption: string): Node {
  return table<{ name: string; value: string | number }>(
    [
      { title: 'what', value: (r) => r.name },
      { title: 'value', value: (r) => (typeof r.value === 'number' ? fmt(r.value) : r.value), numeric: rows.every((r) => typeof r.value === 'number') },
    ],
    [...rows],
    caption,
  );
}

/** Every bin's range on both axes, from the cut points (the lower bounds of bins 1 to 4). */
function binsTable(cuts: SplitReportView['cutPoints']): Node {
  const duration = binRanges(cuts.duration_ms, msAsSeconds);
  const events = binRanges(cuts.event_count, (n) => fmt(n));
  return table<number>(
    [
      { title: 'bin', value: (k) => String(k), numeric: true },
      { title: 'duration', value: (k) => duration[k] ?? '—' },
      { title: 'events', value: (k) => events[k] ?? '—' },
    ],
    [0, 1, 2, 3, 4],
    'Bins: the values each holds (cut points from the split)',
  );
}

function renderSplit(v: SplitReportView): Node {
  const theme = editorTheme();
  const out = el('section', { class: 'data-report', 'data-report': 'split' });
  out.appendChild(el('p', { class: 'muted' }, `${v.file} · ${v.mode} mode${v.seed !== null ? ` · seed ${v.seed}` : ''}`));
  const c = v.counts;
  out.appendChild(
    pairs(
      [
        { name: 'rows read', value: c.rows_read },
        { name: 'retained', value: c.rows_retained },
        { name: 'excluded: other source', value: c.other_source },
        { name: 'excluded: unknown unlabeled', value: c.unknown_unlabeled },
        { name: 'train', value: c.train },
        { name: 'test', value: c.test },
      ],
      'Counts',
    ),
  );
  out.appendChild(el('h2', {}, 'Strata'));
  out.appendChild(chart(strataSpec(v.strata, theme), 'the test set in its 5 × 5 strata: duration bin by event-count bin'));
  out.appendChild(chart(binsSpec(v.bins, theme), 'train and test rows per bin of duration and of event count'));
  out.appendChild(binsTable(v.cutPoints));
  out.appendChild(
    table<{ name: string; ok: boolean }>(
      [
        { title: 'check', value: (k) => k.name },
        { title: 'result', value: (k) => el('span', { class: k.ok ? 'ok' : 'error' }, k.ok ? 'passed' : 'FAILED') },
      ],
      [...v.checks],
      'Checks',
    ),
  );
  out.appendChild(filesTable(v.files));
  return out;
}

function renderBuild(v: BuildReportView): Node {
  const out = el('section', { class: 'data-report', 'data-report': v.kind });
  out.appendChild(el('p', { class: 'muted' }, `${v.file} · ${v.kind === 'sft' ? 'build-sft' : 'build-grpo'} · seed ${v.seed}`));
  out.appendChild(pairs(v.counts, 'Counts'));
  out.appendChild(pairs(v.settings, 'Settings'));
  out.appendChild(el('h2', {}, 'Events per row'));
  if (v.histogram) out.appendChild(chart(eventsSpec(v.histogram, editorTheme()), 'a histogram of the events in each output row'));
  else out.appendChild(el('p', { class: 'error', role: 'alert' }, `No histogram: ${v.histogramError ?? 'the output was not read'}`));
  out.appendChild(filesTable(v.files));
  return out;
}

export function renderDataReport(v: DataReportView): Node {
  finalizeCharts();
  return v.kind === 'split' ? renderSplit(v) : renderBuild(v);
}

export const avtimeDataRenderers = { avtimeData: ((v: DataReportView) => renderDataReport(v)) as RendererOf<DataReportView, Node> };
