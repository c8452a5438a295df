// Messages between a report panel and its webview (after vscode-pull-request-github's webviews/common/message.ts):
// the webview says `ready`, then asks with {req, command, args} and gets {seq, res | err} back. Every command's
// arguments and answer are typed once, for both sides, composed from the run types' report contracts
// (protocols/reportContracts.ts): the front end's request() and the host's handlers take them from this file,
// and the host checks what arrives with zod (requests.ts). The webview imports types only from here.
import { REPORT_CONTRACTS, type ReportSourceTypes } from '../protocols/reportContracts';
import type { Request } from './contract';

type Contract = (typeof REPORT_CONTRACTS)[number];
type KindsOf<C> = C extends { kinds: infer K } ? keyof K & string : never;
export type ReportKind = KindsOf<Contract>;
/** The id of a report source (a run type may have several: FP's package reports and its findings). */
export type ReportProtocol = keyof ReportSourceTypes;

/** Every kind, its title and the source that answers it, from the contracts. */
export const REPORT_KINDS = REPORT_CONTRACTS.flatMap((c) => Object.keys(c.kinds)) as ReportKind[];
export const REPORT_TITLES = Object.fromEntries(REPORT_CONTRACTS.flatMap((c) => Object.entries(c.kinds))) as Record<ReportKind, string>;
export const REPORT_PROTOCOL = Object.fromEntries(REPORT_CONTRACTS.flatMap((c) => Object.keys(c.kinds).map((k) => [k, c.source]))) as Record<
  ReportKind,
  ReportProtocol
>;

export interface CellFocus {
  benchmark: string;
  condition: string;
}

/** What a panel keeps across reloads (webview getState/setState, and the serializer's state). */
export interface ReportViewState {
  kind: ReportKind;
  focus?: CellFocus;
  /** A run type with many runs: the run's root (its source checks it is one of its runs before reading it). */
  run?: string;
}

/** What `ready` answers: the state, and the panel's title (the webview knows no table of kinds). */
export interface ReadyState extends ReportViewState {
  title: string;
}

/** The report model each source hands over (`getReport`). */
export type ProtocolReports = { [P in ReportProtocol]: ReportSourceTypes[P]['model'] };

/** Requests every panel answers itself (reportPanel.ts). */
export interface PanelRequests {
  ready: Request<undefined, ReadyState>;
  getReport: Request<undefined, ProtocolReports[ReportProtocol]>;
  openFile: Request<{ file: string; line?: number }, true>;
}

/** Each source's own requests, answered by that source (REPORT_PROTOCOL says which source a panel asks). */
export type ProtocolRequests = { [P in ReportProtocol]: ReportSourceTypes[P]['requests'] };

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every request a report webview may send. */
export type ReportRequests = PanelRequests & UnionToIntersection<ProtocolRequests[ReportProtocol]>;
export type RequestCommand = keyof ReportRequests & string;
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
