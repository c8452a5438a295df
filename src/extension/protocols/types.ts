// The UI half of a run type (issue 24 point 3): what a run type brings to the extension as one object, beside its
// engine half in core/protocols/<id>/. The extension composes every view from PROTOCOL_UIS (registry.ts): the
// tree's groups, the commands, the report sources, the runbook's steps, Stop and its context key. Only types
// here (the vscode import is erased), so the composition (compose.ts) and its tests run under plain mocha.
import type * as vscode from 'vscode';
import type { AnyProtocol } from '../../core/protocols/types';
import type { ProtocolSection } from '../progressNodes';
import type { CellFocus, ReportKind } from '../reports/messages';
import type { ProtocolReportSource } from '../reports/reportPanel';
import type { RunbookSteps } from '../runbook/steps';

/** What the extension gives each run type's UI when it activates it. */
export interface UiHost {
  /** dist/ of the installed extension (cli.js, worker.js). */
  distDir: string;
  output: vscode.OutputChannel;
  secrets: vscode.SecretStorage;
  log(line: string): void;
  /** The knob environment of the settings (a bad setting is logged and gives {}). */
  env(): Record<string, string>;
  openReport(kind: ReportKind, opts?: { focus?: CellFocus; run?: string }): void;
  /** A new runbook's text: every run type's cells. */
  newRunbook(): string;
  /** A run root made outside the run type's own commands (a runbook step's output): each run type that recognises it follows it. */
  followRoot(root: string): Promise<void>;
}

/** One palette (or tree menu) command of a run type. */
export interface UiCommand {
  id: string;
  run(...args: unknown[]): unknown;
}

/** One way to start a run of a run type ("fpsweep: Start a run…" lists them, a run row's Start runs its own). */
export interface RunStart {
  /** Short, after the run type's title in the pick: 'Pilot', 'Full run', 'Run'. */
  label: string;
  detail?: string;
  /** `root`: the run row's run when started from the tree (resume it), else undefined (the run type asks). */
  run(root: string | undefined): unknown;
}

/** A run type's UI, once activated: its models live as long as the extension. */
export interface ProtocolView extends vscode.Disposable {
  /** Its group in the progress tree. */
  section(): ProtocolSection;
  /** Fires when its section or its live runs changed. */
  readonly onDidChange: vscode.Event<void>;
  /** The run roots whose worker lives now: Stop asks `requestStop` of each engine state of each (runRootsOf). */
  liveRoots(): readonly string[];
  /** Re-reads its runs (after Stop). */
  refresh(): Promise<void>;
  /** Follows `root` from now on when it is one of its run roots (its tree then shows it); else does nothing. */
  follow?(root: string): Promise<void>;
  readonly commands: readonly UiCommand[];
  /** Its report sources, by report source id (reports/messages.ts REPORT_KIND_SOURCE says which kind asks which). */
  readonly reportSources: Readonly<Record<string, ProtocolReportSource>>;
  readonly runbook?: RunbookSteps;
  /** Its ways to start a run: the extension's one Start command ("fpsweep: Start a run…") offers them. */
  readonly starts?: readonly RunStart[];
  /**
   * Opens the report of run `root` (a run row's root), or, with undefined, of the run it follows or one the user
   * picks: the extension's one "fpsweep: Open report…" command and the run rows' Report action call it.
   */
  openReport?(root: string | undefined): unknown;
  /** Re-reads its settings (the configuration or the workspace folders changed). */
  settingsChanged?(e: vscode.ConfigurationChangeEvent | undefined): void;
  /** The progress view's description while this run type has something to say (FP: percent and ETA). */
  viewDescription?(): string | undefined;
}

export interface ProtocolUi {
  /** Its engine half, from core/protocols/registry.ts. */
  readonly protocol: Pick<AnyProtocol, 'id' | 'title' | 'runRoot' | 'runRoots'>;
  activate(host: UiHost): ProtocolView;
}
