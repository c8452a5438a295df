// The Data palette commands: "Open AVTime Data runbook" (the source JSONL from the setting, or a file picked; an
// existing runbook is opened as it is, never overwritten) and "Open AVTime data report" (a step's report by a
// quick pick of the runbook's outputs, or any report file picked).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { stringifyRunbook } from '../../../runbook/format';
import { openRunbookEditor } from '../../../runbook/open';
import type { UiCommand } from '../../types';
import { readAvtimeSettings, workspaceFolder } from '../avtimeSettings';
import { resolveIn } from '../avtimeSettingsModel';
import { DATA_RUNBOOK_FILE, dataOutputs, dataRunbookCells, type DataPaths } from './dataRunbook';

export interface DataCommandHost {
  openDataReport(target: string): void;
}

/** The Data runbook's paths from the settings, as written there (the steps run in the workspace folder). */
function settingsPaths(): DataPaths {
  const s = readAvtimeSettings();
  return { source: s.dataSource, videos: s.dataVideos, outputRoot: s.dataOutputRoot, benchRoot: s.benchRoot, captionBaseUrl: s.captionBaseUrl };
}

function requireFolder(): string {
  const folder = workspaceFolder();
  if (!folder) throw new Error('open a workspace folder first: the Data runbook and its outputs live in it');
  return folder;
}

/** `file` as a step writes it: relative to the workspace folder when inside it. */
function asWritten(folder: string, file: string): string {
  const rel = path.relative(folder, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

export class DataCommands {
  readonly commands: UiCommand[] = [
    { id: 'fpsweep.avtime.openDataRunbook', run: () => this.openRunbook() },
    { id: 'fpsweep.avtime.openDataReport', run: (target?: unknown) => this.openReport(typeof target === 'string' ? target : undefined) },
  ];

  constructor(private readonly host: DataCommandHost) {}

  private async openRunbook(): Promise<void> {
    const folder = requireFolder();
    const file = path.join(folder, DATA_RUNBOOK_FILE);
    if (!fs.existsSync(file)) {
      const paths = settingsPaths();
      const configured = resolveIn(folder, paths.source)!;
      const pick = await vscode.window.showQuickPick(
        [
          {
            label: `$(file) ${paths.source}`,
            description: fs.existsSync(configured) ? 'fpsweep.avtime.dataSource' : 'fpsweep.avtime.dataSource (not there yet)',
            choose: false,
          },
          { label: '$(folder-opened) Choose the source JSONL…', description: 'complete-video records, one per line', choose: true },
        ],
        // Kept open when the focus moves: run from the walkthrough, whose page moves on to the next step (and draws its
        // image in a webview that takes the focus) as the command starts, this pick closed under the user.
        { title: 'fpsweep: AVTime Data runbook: the source the split reads', ignoreFocusOut: true },
      );
      if (!pick) return;
      if (pick.choose) {
        const chosen = await vscode.window.showOpenDialog({
          title: 'The complete-video JSONL',
          canSelectMany: false,
          defaultUri: vscode.Uri.file(folder),
          filters: { JSONL: ['jsonl'] },
        });
        if (!chosen?.[0]) return;
        paths.source = asWritten(folder, chosen[0].fsPath);
      }
      try {
        await fs.promises.writeFile(file, stringifyRunbook({ fpsweepRunbook: 1, cells: dataRunbookCells(paths) }), { flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    await openRunbookEditor(file);
  }

  private async openReport(given?: string): Promise<void> {
    const folder = requireFolder();
    if (given) return this.host.openDataReport(path.resolve(folder, given));
    const o = dataOutputs(settingsPaths());
    const known = [
      { label: 'Split', detail: o.split },
      { label: 'SFT rows', detail: o.sftReport },
      { label: 'GRPO rows', detail: o.grpoReport },
    ].map((k) => ({ ...k, target: path.resolve(folder, k.detail), description: fs.existsSync(path.resolve(folder, k.detail)) ? '' : '(not written yet)' }));
    const pick = await vscode.window.showQuickPick([...known, { label: '$(folder-opened) Choose a report file…', detail: '', description: '', target: '' }], {
      title: 'fpsweep: Open AVTime data report',
    });
    if (!pick) return;
    if (pick.target) return this.host.openDataReport(pick.target);
    const chosen = await vscode.window.showOpenDialog({
      title: 'A split folder, its split_manifest.json, or a build-sft / build-grpo report',
      canSelectFiles: true,
      canSelectFolders: true,
      defaultUri: vscode.Uri.file(folder),
    });
    if (chosen?.[0]) this.host.openDataReport(chosen[0].fsPath);
  }
}
