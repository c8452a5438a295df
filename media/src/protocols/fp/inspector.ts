// The item inspector's page (issue 36 point 1): says `ready`, then draws what the host sends (inspectorPanel.ts): the
// item being read, the item (inspectorView.ts), or why it cannot be shown. Nothing here reads a file or computes.
import type { InspectorHostMessage } from '../../../../src/extension/protocols/fp/inspectorMessages';
import { clear, el } from '../../dom';
import { renderInspection } from './inspectorView';
import './inspector.css';

declare function acquireVsCodeApi(): { postMessage(m: { type: 'ready' }): void };
const api = acquireVsCodeApi();
const app = document.getElementById('app')!;

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as InspectorHostMessage;
  if (m?.type === 'loading') {
    clear(app);
    app.appendChild(
      el('p', { class: 'muted', id: 'inspector-loading' }, `Reading ${m.benchmark} · ${m.itemId} (frames the run no longer has are made again)…`),
    );
  } else if (m?.type === 'item') {
    clear(app);
    app.appendChild(renderInspection(m.model, m.frameUris, { lazy: true }));
    window.scrollTo(0, 0);
  } else if (m?.type === 'error') {
    clear(app);
    app.appendChild(el('p', { class: 'error', role: 'alert' }, m.message));
  }
});

api.postMessage({ type: 'ready' });
