// The report webview: asks the host for the core's report and renders it with the renderer of the panel's kind
// (protocols/registry.ts: each run type's own). Nothing here computes a result; every string from the data is a text node.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import './report.css';
import type { ReportViewState } from '../../src/extension/reports/messages';
import { clear, el, renderValue } from './dom';
import { getState, onNotice, request, setState } from './messages';
import { RENDERERS } from './protocols/registry';
import { rendererFor, type RendererOf } from './protocols/renderers';

const app = document.getElementById('app')!;
let state: ReportViewState | undefined;
let title = '';
let loading = false;
let again = false;
/** Lays the shown report out again (no fetch): on a pick inside a view, and when the editor's theme changes. */
let redrawShown: (() => void) | null = null;

// A theme change: VS Code swaps the body's class (vscode-light / vscode-dark / vscode-high-contrast) with the CSS
// variables; the charts took their colors from those variables when drawn (vegaChart.ts editorTheme), so draw again.
new MutationObserver(() => redrawShown?.()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

async function load(): Promise<void> {
  if (!state) return;
  if (loading) {
    again = true;
    return;
  }
  loading = true;
  try {
    const report = await request('getReport');
    // A pick inside a view (the findings' benchmark) lays the same report out again, without a fetch.
    const render = rendererFor(RENDERERS, state.kind) as RendererOf<unknown, Node>;
    const redraw = () => draw(() => render(report, state!.focus, redraw));
    redrawShown = redraw;
    redraw();
  } catch (err) {
    draw(() => el('p', { class: 'error', role: 'alert' }, (err as Error).message));
  } finally {
    loading = false;
    if (again) {
      again = false;
      void load();
    }
  }
}

function draw(body: () => Node): void {
  const refresh = el('vscode-button', { secondary: true, title: 'Fetch the report again' }, 'Refresh');
  refresh.addEventListener('click', () => void load());
  let content: Node;
  try {
    content = body();
  } catch (err) {
    // A report whose shape we do not know: say so and still show it (escaped) rather than nothing.
    content = el('div', {}, el('p', { class: 'error' }, `Could not lay out this report: ${(err as Error).message}`));
  }
  // A redraw keeps what the reader did: scroll position, the field being typed in (items.ts keeps its value).
  const scroll = { x: window.scrollX, y: window.scrollY };
  const focused = document.activeElement;
  clear(app);
  app.appendChild(el('header', {}, el('h1', {}, `fpsweep: ${title}`), refresh));
  app.appendChild(content);
  if (focused instanceof HTMLElement && focused.isConnected && document.activeElement !== focused) focused.focus();
  // A key on a control that lays the report out again (Enter on a benchmark's link) keeps the focus on that control as
  // drawn anew, not on the page's start: a keyboard user goes on from where they were.
  else if (focused instanceof HTMLElement && !focused.isConnected && focused !== document.body) refocus(sameControl(focused));
  window.scrollTo(scroll.x, scroll.y);
  app.dataset.draws = String(Number(app.dataset.draws ?? 0) + 1); // lets a UI test wait for a redraw
}

/** The element of the drawn report that stands where `old` stood: the same tag and id, or the same tag, data and text. */
function sameControl(old: HTMLElement): HTMLElement | undefined {
  const key = (e: Element) => `${e.tagName}|${e.id}|${JSON.stringify({ ...(e as HTMLElement).dataset })}|${e.textContent}`;
  const want = key(old);
  return [...app.querySelectorAll<HTMLElement>(old.tagName)].find((e) => key(e) === want);
}

/** Focuses `target` once it can take the focus: a vscode-elements control sets its tabindex in its first update. */
function refocus(target: HTMLElement | undefined): void {
  if (!target) return;
  const ready = (target as HTMLElement & { updateComplete?: Promise<unknown> }).updateComplete ?? Promise.resolve();
  void ready.then(() => {
    // Unless the reader went on elsewhere meanwhile.
    if (target.isConnected && (!document.activeElement || document.activeElement === document.body)) target.focus();
  });
}

async function main(): Promise<void> {
  const saved = getState();
  const host = await request('ready');
  // The host's kind wins (it opened this panel); a saved focus survives a reload.
  state = { kind: host.kind, focus: host.focus ?? saved?.focus, run: host.run ?? saved?.run };
  title = host.title;
  setState(state);
  onNotice((n) => {
    if (n.notice === 'focus') {
      state = { ...state!, focus: n.focus };
      setState(state);
    }
    void load();
  });
  await load();
}

main().catch((err) => {
  clear(app);
  app.appendChild(el('p', { class: 'error' }, String((err as Error)?.message ?? err)));
  app.appendChild(renderValue(null));
});
