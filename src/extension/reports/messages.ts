// Messages between a report panel and its webview (after vscode-pull-request-github's webviews/common/message.ts):
// the webview says `ready`, then asks with {req, command, args} and gets {seq, res | err} back. Every command's
// arguments and answer are typed here once (ReportRequests), for both sides: the front end's request() and the
// host's handlers take them from this file, and the host checks what arrives with zod (requests.ts).
// Imported by the host (src/extension) and by the front end (media/src); no vscode, no Node, no zod.

import type { AvtimeQueryDetail, AvtimeQueryFilter, AvtimeQueryList, AvtimeReport } from '../../core/protocols/avtime/reportTypes';
import type { FindingsView } from '../../core/protocols/fp/findings/charts/viewModel';
import type { ContrastName, Flip } from '../../core/protocols/fp/findings/types';
import type { Report } from '../../core/protocols/fp/report/schema';

export const REPORT_KINDS = ['timing', 'failures', 'checks', 'avtime', 'findings'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export const REPORT_TITLES: Record<ReportKind, string> = {
  timing: 'Pilot timing',
  failures: 'Failures',
  checks: 'Checks',
  avtime: 'AVTime-Bench',
  findings: 'Findings',
};

/** The protocol (core/protocols/registry.ts id) whose report a kind shows: the panel asks that protocol's source. */
export const REPORT_PROTOCOL: Record<ReportKind, ReportProtocol> = {
  timing: 'fp',
  failures: 'fp',
  checks: 'fp',
  avtime: 'avtime',
  findings: 'fpFindings',
};

export interface CellFocus {
  benchmark: string;
  condition: string;
}

/** What a panel keeps across reloads (webview getState/setState, and the serializer's state). */
export interface ReportViewState {
  kind: ReportKind;
  focus?: CellFocus;
  /** avtime: the run's output root (the host checks it is an AVTime run before reading it). */
  run?: string;
}

/** One request: what the webview sends with it and what the host answers. */
interface Request<Args, Result> {
  args: Args;
  result: Result;
}

/** One item of a package (question, options, answer), as the item lookup shows it. */
export interface ItemView {
  item_id: string;
  benchmark: string;
  video_id: string;
  question: string;
  options: string[];
  answer: string;
}

/** The report model each protocol's source hands over (`getReport`). */
export interface ProtocolReports {
  fp: Report;
  avtime: AvtimeReport;
  fpFindings: FindingsView;
}
export type ReportProtocol = keyof ProtocolReports;

/** Requests every panel answers itself (reportPanel.ts). */
export interface PanelRequests {
  ready: Request<undefined, ReportViewState>;
  getReport: Request<undefined, ProtocolReports[ReportProtocol]>;
  openFile: Request<{ file: string; line?: number }, true>;
}

/** Each protocol's own requests, answered by its report source (REPORT_PROTOCOL says which source a panel asks). */
export interface ProtocolRequests {
  fp: { getItem: Request<{ benchmark: string; itemId: string }, ItemView> };
  avtime: {
    avtimeQueries: Request<AvtimeQueryFilter, AvtimeQueryList>;
    avtimeQuery: Request<{ queryId: string }, AvtimeQueryDetail>;
  };
  fpFindings: { findingsFlips: Request<{ benchmark: string; contrast: ContrastName }, Flip[]> };
}

/** Every request a report webview may send. */
export type ReportRequests = PanelRequests & ProtocolRequests['fp'] & ProtocolRequests['avtime'] & ProtocolRequests['fpFindings'];
export type RequestCommand = keyof ReportRequests;
export type ProtocolCommand = Exclude<RequestCommand, keyof PanelRequests>;
export type RequestArgs<C extends RequestCommand> = ReportRequests[C]['args'];
export type RequestResult<C extends RequestCommand> = ReportRequests[C]['result'];

/** A request as it travels: a command without arguments carries none. */
export type RequestOf<C extends RequestCommand> =
  RequestArgs<C> extends undefined ? { req: number; command: C } : { req: number; command: C; args: RequestArgs<C> };
export type WebviewRequest = { [C in RequestCommand]: RequestOf<C> }[RequestCommand];

export type HostReply = { seq: number; res: unknown } | { seq: number; err: string };

/** Pushed by the host without a request: the data changed (the worker wrote more), fetch again. */
export interface HostNotice {
  notice: 'changed' | 'focus';
  focus?: CellFocus;
}

export function isReportKind(x: unknown): x is ReportKind {
  return typeof x === 'string' && (REPORT_KINDS as readonly string[]).includes(x);
}
