// Lays out one item across its conditions, side by side: per condition its answer (raw reply, parsed letter, right or
// wrong, tokens, latency, server) and the frames it sent, at the size sent, with their stored index and time. Frames
// are thumbnails whose image is asked for only as they come near the view (an IntersectionObserver sets `src`), and
// a condition draws its first screen of frames at once, the rest a chunk at a time as they are scrolled to: a
// 582-frame condition opens at once. A click shows a frame at the size it was sent. Frames made again after the item
// is shown are filled in where they were missing (fillFrames). Every string from the data is a text node (dom.ts); no
// Node and no vscode here, so bench/ draws the same view in a plain page.
import type { ConditionInspection, InspectedFrame, ItemInspection } from '../../../../src/core/protocols/fp/inspect/types';
import { el, fmt, roveKeys, roveStop } from '../../dom';

export interface InspectorViewOptions {
  /** Load frames as they scroll into view (the panel); false loads every frame at once (bench/'s baseline). */
  lazy: boolean;
  /** How far outside the view a frame starts loading. */
  rootMargin?: string;
  /** Frames a condition draws at once (the rest as they are scrolled to); all of them when absent (bench/'s baseline). */
  firstScreen?: number;
}

/** Frames drawn at once per condition: more than a tall window's first screen of 120 px thumbnails holds. */
export const FIRST_SCREEN_FRAMES = 60;
/** Frames drawn each time the line after the drawn ones nears the view. */
const FRAMES_PER_TASK = 120;

/** Frames not yet near the view, and the observer that loads them (one per drawn item). */
let observer: IntersectionObserver | undefined;

/** A drawn condition: its data (replaced when frames are made again), its parts, how many frames are drawn. */
interface DrawnColumn {
  c: ConditionInspection;
  uris: (string | null)[];
  head: HTMLElement;
  grid: HTMLElement | null;
  drawn: number;
  /** The line after the drawn frames while some are still to draw. */
  more?: HTMLElement;
}
/** The item drawn now; a new drawing replaces it. */
let drawn: { section: HTMLElement; columns: DrawnColumn[]; note: HTMLElement } | undefined;
/** Watches each condition's "more frames" line (one per drawn item). */
let moreObserver: IntersectionObserver | undefined;

export function renderInspection(m: ItemInspection, frameUris: (string | null)[][], opts: InspectorViewOptions): HTMLElement {
  observer?.disconnect();
  moreObserver?.disconnect();
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
  const row = el('div', { class: 'conditions' });
  const columns = m.conditions.map((c, k) => conditionColumn(c, frameUris[k] ?? []));
  for (const col of columns) {
    row.appendChild(col.article);
    drawFrames(col.column, opts.firstScreen ?? Infinity);
  }
  out.appendChild(row);
  const note = el('p', { class: 'muted', id: 'inspector-rebuilt' }, rebuiltText(m));
  out.appendChild(note);
  drawn = { section: out, columns: columns.map((c) => c.column), note };
  // The rest of a condition's frames as they are scrolled to: a chunk each time the line after its last drawn frame
  // comes near the view (drawing them all at once would compete with the first screen's images).
  if (opts.firstScreen !== undefined) {
    const more = new IntersectionObserver(drawMore, { rootMargin: '600px' });
    moreObserver = more;
    for (const col of drawn.columns) {
      if (col.drawn >= col.c.frames.length) continue;
      col.more = el('p', { class: 'muted frames-more' });
      col.more.textContent = moreText(col);
      col.grid!.after(col.more);
      more.observe(col.more);
    }
  }
  return out;
}

function moreText(col: DrawnColumn): string {
  return `${col.c.frames.length - col.drawn} more frame(s) below…`;
}

function drawMore(entries: IntersectionObserverEntry[], obs: IntersectionObserver): void {
  for (const e of entries) {
    const col = drawn?.columns.find((c) => c.more === e.target);
    if (!e.isIntersecting || !col?.more) continue;
    drawFrames(col, col.drawn + FRAMES_PER_TASK);
    obs.unobserve(col.more);
    if (col.drawn >= col.c.frames.length) {
      col.more.remove();
      col.more = undefined;
    } else {
      col.more.textContent = moreText(col);
      obs.observe(col.more); // observed again: told at once whether it is still near the view
    }
  }
}

function rebuiltText(m: ItemInspection): string {
  return m.rebuiltFrames ? `${m.rebuiltFrames} frame(s) were made again by the frame pipeline: the run's JPEGs were gone.` : '';
}

/**
 * The item drawn now, with the frames made again since (the same item's model, read again): each condition's facts
 * and problems are replaced, its frames drawn missing get their image, the frames still to draw come from the new
 * model. False when the item drawn is another one.
 */
export function fillFrames(m: ItemInspection, frameUris: (string | null)[][]): boolean {
  if (!drawn || drawn.section.dataset.benchmark !== m.benchmark || drawn.section.dataset.item !== m.item.item_id) return false;
  m.conditions.forEach((c, k) => {
    const col = drawn!.columns.find((x) => x.c.condition === c.condition);
    if (!col || col.c.frames.length !== c.frames.length) return;
    const uris = frameUris[k] ?? [];
    const head = conditionHead(c);
    col.head.replaceWith(head);
    col.head = head;
    const figures = col.grid ? [...col.grid.children] : [];
    figures.forEach((fig, i) => {
      if (fig.getAttribute('data-source') === 'missing' && uris[i]) fig.replaceWith(frameFigure(c.frames[i], uris[i], c));
    });
    if (col.grid) roveStop(col.grid, 'button.zoom');
    col.c = c;
    col.uris = uris;
  });
  drawn.note.textContent = rebuiltText(m);
  return true;
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

/** A condition's answer, its failures and problems: what a model read again replaces. */
function conditionHead(c: ConditionInspection): HTMLElement {
  const head = el('div', { class: 'condition-head' }, facts(c));
  for (const f of c.failures)
    head.appendChild(el('p', { class: 'fail' }, `${f.kind} after ${f.attempts} attempt(s) (${f.endpoint ?? 'no server'}): ${f.message}`));
  for (const p of c.problems) head.appendChild(el('p', { class: 'warning' }, p));
  return head;
}

function conditionColumn(c: ConditionInspection, uris: (string | null)[]): { article: HTMLElement; column: DrawnColumn } {
  const article = el('article', { class: 'condition', 'data-condition': c.condition, 'data-state': c.state, 'data-frames': c.frames.length });
  article.appendChild(el('h2', {}, c.condition));
  const head = conditionHead(c);
  article.appendChild(head);
  let grid: HTMLElement | null = null;
  if (c.frames.length) {
    grid = el('div', { class: 'frames', role: 'list', 'aria-label': `${c.condition}: ${c.frames.length} frames sent` });
    roveFrames(grid);
    article.appendChild(grid);
  }
  return { article, column: { c, uris, head, grid, drawn: 0 } };
}

/** Draws the column's frames up to `upTo` (those already drawn stay). */
function drawFrames(col: DrawnColumn, upTo: number): void {
  const end = Math.min(upTo, col.c.frames.length);
  for (; col.drawn < end; col.drawn++) col.grid!.appendChild(frameFigure(col.c.frames[col.drawn], col.uris[col.drawn] ?? null, col.c));
  if (col.grid) roveStop(col.grid, 'button.zoom');
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
    // A button: a click, Enter or Space shows the frame at the size sent and again as a thumbnail; Escape puts it back
    // (the grid's keys, roveFrames). One tab stop per grid: the arrows move between its frames.
    const zoom = el('button', { type: 'button', class: 'zoom', 'aria-expanded': 'false', tabindex: -1 }, img);
    zoom.addEventListener('click', () => setFull(fig, !fig.classList.contains('full')));
    fig.appendChild(zoom);
  }
  fig.appendChild(el('figcaption', {}, `#${f.index}${time}`, f.source === 'rebuilt' ? el('span', { class: 'muted' }, ' · rebuilt') : null));
  return fig;
}

function setFull(fig: Element, full: boolean): void {
  fig.classList.toggle('full', full);
  fig.querySelector('button.zoom')?.setAttribute('aria-expanded', String(full));
}

/** The frames' keys: one tab stop per grid, the arrows, Home and End move between its frames (dom.ts roveKeys), and
 * Escape shows the focused frame small again. */
function roveFrames(grid: HTMLElement): void {
  roveKeys(grid, 'button.zoom');
  grid.addEventListener('keydown', (e) => {
    const fig = (document.activeElement as HTMLElement | null)?.closest('figure.frame');
    if (e.key === 'Escape' && fig?.classList.contains('full')) {
      e.stopPropagation();
      setFull(fig, false);
    }
  });
}

function loadVisible(entries: IntersectionObserverEntry[], obs: IntersectionObserver): void {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    const img = e.target as HTMLImageElement;
    obs.unobserve(img);
    if (img.dataset.src) img.src = img.dataset.src;
  }
}
