// Messages between a report panel and its webview (after vscode-pull-request-github's webview.ts):
// the webview says `ready`, then asks with {req, command, args} and gets {seq, res | err} back.
// Imported by the host (src/extension) and by the front end (media/src); no vscode, no Node.

import type { AvtimeQueryFilter } from '../../core/protocols/avtime/reportTypes';

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
export const REPORT_PROTOCOL: Record<ReportKind, string> = {
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

export type WebviewRequest =
  | { req: number; command: 'ready' }
  | { req: number; command: 'getReport' }
  | { req: number; command: 'openFile'; args: { file: string; line?: number } }
  | { req: number; command: 'getItem'; args: { benchmark: string; itemId: string } }
  | { req: number; command: 'avtimeQueries'; args: AvtimeQueryFilter }
  | { req: number; command: 'avtimeQuery'; args: { queryId: string } }
  | { req: number; command: 'findingsFlips'; args: { benchmark: string; contrast: string } };

export type HostReply = { seq: number; res: unknown } | { seq: number; err: string };

/** Pushed by the host without a request: the data changed (the worker wrote more), fetch again. */
export interface HostNotice {
  notice: 'changed' | 'focus';
  focus?: CellFocus;
}

export function isReportKind(x: unknown): x is ReportKind {
  return typeof x === 'string' && (REPORT_KINDS as readonly string[]).includes(x);
}
