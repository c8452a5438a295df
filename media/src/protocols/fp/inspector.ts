// The item inspector's page (issue 36 point 1): says `ready`, then draws what the host sends (inspectorPanel.ts): the
// item being read, the item (inspectorView.ts), the frames made again for it, or why it cannot be shown. It keeps the
// item's state for a window reload (setState: the panel serializer gets it back). Nothing here reads a file or
// computes. The section marks when the item arrived, when it was drawn, when its first frame decoded and when its
// frames were all there (epoch ms), and the host's read time (ms): the e2e records them as the open time; and where
// its frames are (`data-frames`: making, complete, failed).
import type { InspectorHostMessage, InspectorState } from '../../../../src/extension/protocols/fp/inspectorMessages';
import { clear, el } from '../../dom';
import { FIRST_SCREEN_FRAMES, fillFrames, renderInspection } from './inspectorView';
import './inspector.css';

declare function acquireVsCodeApi(): { postMessage(m: { type: 'ready' }): void; setState(s: InspectorState): void };
const api = acquireVsCodeApi();
const app = document.getElementById('app')!;

const section = () => app.querySelector<HTMLElement>('section.inspection');

function framesState(state: 'making' | 'complete' | 'failed', note?: string): void {
  const s = section();
  if (!s) return;
  s.dataset.frames = state;
  if (state === 'complete') s.dataset.completeAt = String(Date.now());
  const line = document.getElementById('inspector-making');
  if (state === 'complete') line?.remove();
  else if (line && note !== undefined) {
    line.textContent = note;
    line.className = 'warning';
  }
}

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as InspectorHostMessage;
  if (m?.type === 'loading') {
    clear(app);
    app.appendChild(el('p', { class: 'muted', id: 'inspector-loading' }, `Reading ${m.benchmark} · ${m.itemId}…`));
  } else if (m?.type === 'item') {
    const receivedAt = Date.now();
    clear(app);
    const view = renderInspection(m.model, m.frameUris, { lazy: true, firstScreen: FIRST_SCREEN_FRAMES });
    if (m.making)
      view.insertBefore(
        el('p', { class: 'muted', id: 'inspector-making', role: 'status' }, `Making ${m.making} frame(s) the run no longer has (the frame pipeline)…`),
        view.children[1] ?? null,
      );
    app.appendChild(view);
    Object.assign(view.dataset, { receivedAt: String(receivedAt), drawnAt: String(Date.now()), readMs: String(m.readMs) });
    framesState(m.making ? 'making' : 'complete');
    window.scrollTo(0, 0);
    api.setState(m.state);
  } else if (m?.type === 'frames') {
    if (fillFrames(m.model, m.frameUris)) framesState('complete');
  } else if (m?.type === 'makeFailed') {
    framesState('failed', `The missing frames could not be made again: ${m.message}`);
  } else if (m?.type === 'error') {
    clear(app);
    app.appendChild(el('p', { class: 'error', role: 'alert' }, m.message));
  }
});

// The first frame image of the item shown that decodes (a load event does not bubble: caught on its way down).
app.addEventListener(
  'load',
  (e) => {
    const s = section();
    if (s && e.target instanceof HTMLImageElement && !s.dataset.firstFrameAt) s.dataset.firstFrameAt = String(Date.now());
  },
  true,
);

api.postMessage({ type: 'ready' });
