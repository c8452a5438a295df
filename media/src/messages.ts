// The webview side of the {req, command, args} → {seq, res | err} exchange: one Promise per request, typed by
// the command (messages.ts's ReportRequests: the host's handlers answer with the same types).
import type { HostNotice, ReportViewState, RequestArgs, RequestCommand, RequestResult } from '../../src/extension/reports/messages';

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

/** A command's arguments as request()'s rest parameter: none for a command that takes none. */
type ArgsParam<C extends RequestCommand> = RequestArgs<C> extends undefined ? [] : [args: RequestArgs<C>];

export function request<C extends RequestCommand>(command: C, ...args: ArgsParam<C>): Promise<RequestResult<C>> {
  const req = nextReq++;
  return new Promise<RequestResult<C>>((resolve, reject) => {
    pending.set(req, { resolve: resolve as (v: unknown) => void, reject });
    api.postMessage(args.length ? { req, command, args: args[0] } : { req, command });
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
