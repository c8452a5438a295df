// Lays out one item across its conditions, side by side: per condition its answer (raw reply, parsed letter, right or
// wrong, tokens, latency, server) and the frames it sent, at the size sent, with their stored index and time. Frames
// are thumbnails whose image is asked for only as they come near the view (an IntersectionObserver sets `src`), so a
// 582-frame condition opens at once; a click shows a frame at the size it was sent. Every string from the data is a
// text node (dom.ts); no Node and no vscode here, so bench/ draws the same view in a plain page.
import type { ConditionInspection, InspectedFrame, ItemInspection } from '../../../../src/core/protocols/fp/inspect/types';
import { el, fmt } from '../../dom';

export interface InspectorViewOptions {
  /** Load frames as they scroll into view (the panel); false loads every frame at once (bench/'s baseline). */
  lazy: boolean;
  /** How far outside the view a frame starts loading. */
  rootMargin?: string;
}

/** Frames not yet near the view, and the observer that loads them (one per drawn item). */
let observer: IntersectionObserver | undefined;

export function renderInspection(m: ItemInspection, frameUris: (string | null)[][], opts: InspectorViewOptions): HTMLElement {
  observer?.disconnect();
  observer = opts.lazy ? new IntersectionObserver(loadVisible, { rootMargin: opts.rootMargin ?? '300px' }) : undefined;
  const out = el('section', { class: 'inspection', 'data-benchmark': m.benchmark, 'data-item': m.item.item_id });
  out.appendChild(el('h1', {}, `${m.benchmark} · ${m.item.item_id}`));
  out.appendChild(el('p', { class: 'muted' }, videoLine(m)));
  if (m.videoProblem) out.appendChild(el('p', { class: 'error' }, m.videoProblem));
  out.appendChild(
    el(
      'details',
      { class: 'prompt', open: true },
      el('summary', {}, `Prompt text (after the frames) · answer ${m.item.answer}`),
      el('pre', { class: 'log' }, m.promptText),
    ),
  );
  if (!m.conditions.length) out.appendChild(el('p', { class: 'muted' }, 'No condition has a row, a raw record or a failure for this item yet.'));
  const columns = el('div', { class: 'conditions' });
  m.conditions.forEach((c, k) => columns.appendChild(conditionColumn(c, frameUris[k] ?? [])));
  out.appendChild(columns);
  if (m.rebuiltFrames)
    out.appendChild(el('p', { class: 'muted' }, `${m.rebuiltFrames} frame(s) were made again by the frame pipeline: the run's JPEGs were gone.`));
  return out;
}

function videoLine(m: ItemInspection): string {
  const v = m.video;
  const video = v ? ` (${v.hash} · ${v.width}×${v.height} · ${fmt(v.nFrames)} frames · ${v.durationS.toFixed(1)} s)` : '';
  return `Video ${m.item.video_id}${video} · package ${m.packageDir}`;
}

function verdict(c: ConditionInspection): Node {
  if (c.state === 'none') return el('span', { class: 'muted' }, 'no row yet');
  if (c.state === 'NA') return el('span', { class: 'muted' }, 'NA (not applicable)');
  if (c.state === 'failed') return el('span', { class: 'fail' }, 'failed');
  const mark = c.correct === null ? '?' : c.correct ? '✓ right' : '✗ wrong';
  const letter = c.pred === null ? '—' : c.pred === '' ? '(no letter)' : c.pred;
  return el('span', { class: c.correct ? 'pass' : c.correct === false ? 'fail' : 'muted', 'data-correct': String(c.correct) }, `${letter} ${mark}`);
}

function orDash(x: string | number | null): string {
  return x === null ? '—' : typeof x === 'number' ? fmt(x) : x;
}

function facts(c: ConditionInspection): HTMLElement {
  const dl = el('dl', { class: 'kv' });
  const row = (k: string, v: Node | string) => dl.append(el('dt', {}, k), el('dd', {}, v));
  row('answer', verdict(c));
  if (c.reusedFrom) row('reused from', `${c.reusedFrom} (no request)`);
  row('reply', c.response === null ? '—' : el('pre', { class: 'reply' }, c.response));
  const predicted = c.predictedPromptTokens === null ? '' : ` (predicted ${fmt(c.predictedPromptTokens)})`;
  row('tokens', `${orDash(c.promptTokens)} prompt${predicted} · ${orDash(c.completionTokens)} answer`);
  row('latency', c.latencyS === null ? '—' : `${c.latencyS.toFixed(3)} s`);
  row('server', orDash(c.endpoint));
  row('at', orDash(c.ts));
  row('frames', framesText(c));
  return dl;
}

function framesText(c: ConditionInspection): string {
  if (!c.frames.length) return c.state === 'ok' && c.width === null ? 'none (text only)' : 'none';
  const flags = [c.capped ? 'capped (fewer stored frames than asked)' : '', c.cappedCtx ? `context cap: ${c.nGrid} grid frames → ${c.nMax}` : ''].filter(
    Boolean,
  );
  return `${c.frames.length} at ${c.width}×${c.height} (short side ${orDash(c.shortSide)})${flags.length ? ` · ${flags.join(' · ')}` : ''}`;
}

function conditionColumn(c: ConditionInspection, uris: (string | null)[]): HTMLElement {
  const col = el('article', { class: 'condition', 'data-condition': c.condition, 'data-state': c.state });
  col.appendChild(el('h2', {}, c.condition));
  col.appendChild(facts(c));
  for (const f of c.failures)
    col.appendChild(el('p', { class: 'fail' }, `${f.kind} after ${f.attempts} attempt(s) (${f.endpoint ?? 'no server'}): ${f.message}`));
  for (const p of c.problems) col.appendChild(el('p', { class: 'warning' }, p));
  if (c.frames.length) {
    const grid = el('div', { class: 'frames', role: 'list', 'aria-label': `${c.condition}: ${c.frames.length} frames sent` });
    c.frames.forEach((f, k) => grid.appendChild(frameFigure(f, uris[k] ?? null, c)));
    col.appendChild(grid);
  }
  return col;
}

function frameFigure(f: InspectedFrame, uri: string | null, c: ConditionInspection): HTMLElement {
  const time = f.timestamp === null ? '' : ` · ${f.timestamp.toFixed(2)} s`;
  const what = `frame ${f.index}${time}, ${c.width}×${c.height} as sent (${f.source})`;
  const fig = el('figure', { class: 'frame', role: 'listitem', 'data-index': f.index, 'data-source': f.source, title: what });
  if (uri === null) fig.appendChild(el('div', { class: 'no-frame' }, 'missing'));
  else {
    // width/height as sent: the box has its size before the image loads (nothing jumps), and `full` shows it so.
    const img = el('img', { alt: what, width: c.width ?? undefined, height: c.height ?? undefined, decoding: 'async' });
    if (observer) {
      img.dataset.src = uri;
      observer.observe(img);
    } else img.src = uri;
    fig.appendChild(img);
    fig.addEventListener('click', () => fig.classList.toggle('full'));
  }
  fig.appendChild(el('figcaption', {}, `#${f.index}${time}`, f.source === 'rebuilt' ? el('span', { class: 'muted' }, ' · rebuilt') : null));
  return fig;
}

function loadVisible(entries: IntersectionObserverEntry[], obs: IntersectionObserver): void {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    const img = e.target as HTMLImageElement;
    obs.unobserve(img);
    if (img.dataset.src) img.src = img.dataset.src;
  }
}
