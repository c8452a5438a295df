// The webview side of the {req, command, args} → {seq, res | err} exchange: one Promise per request.
import type { HostNotice, ReportViewState } from '../../src/extension/reports/messages';

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();
let nextReq = 1;
const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
const noticeListeners: ((n: HostNotice) => void)[] = [];

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as { seq?: unknown; res?: unknown; err?: unknown; notice?: unknown };
  if (typeof m?.seq === 'number') {
    const p = pending.get(m.seq);
    if (!p) return;
    pending.delete(m.seq);
    if (typeof m.err === 'string') p.reject(new Error(m.err));
    else p.resolve(m.res);
  } else if (m?.notice === 'changed' || m?.notice === 'focus') {
    for (const l of noticeListeners) l(m as HostNotice);
  }
});

export function request<T>(command: string, args?: unknown): Promise<T> {
  const req = nextReq++;
  return new Promise<T>((resolve, reject) => {
    pending.set(req, { resolve: resolve as (v: unknown) => void, reject });
    api.postMessage({ req, command, args });
  });
}

export function onNotice(l: (n: HostNotice) => void): void {
  noticeListeners.push(l);
}

export function getState(): ReportViewState | undefined {
  return api.getState() as ReportViewState | undefined;
}

export function setState(s: ReportViewState): void {
  api.setState(s);
}
