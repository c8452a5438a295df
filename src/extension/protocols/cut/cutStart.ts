// "Cut videos…" (the extension's one Start offers it; a cut run row's Start resumes that output root): asks the input
// root, the output root and the cutter (defaults from `fpsweep.cut.*`), then runs `fpsweep avtime cut … --detach`
// through the CLI (the engine's detached worker) and follows the output root in the tree.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startDetached } from '../../cliStart';
import { isDirectory } from '../../sectionSettings';
import type { RunRootsModel } from '../../runRootsModel';
import type { CutProgressDetail } from '../../../core/protocols/cut/progressTypes';
import { configuredInputRoot, configuredOutputRoot, readCutSettings } from './cutSettings';
import { BUILTIN_CUTTER, CUT_VERB, cutCliArgs, cutterProblem } from './cutSettingsModel';

export interface CutStartHost {
  distDir: string;
  output: vscode.OutputChannel;
  model: RunRootsModel<CutProgressDetail>;
}

const TITLE = 'fpsweep: Cut videos';

async function askPath(prompt: string, value: string | undefined, mustExist: boolean): Promise<string | undefined> {
  const answer = await vscode.window.showInputBox({
    title: TITLE,
    prompt,
    value: value ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '',
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() ? 'give a folder' : mustExist && !isDirectory(v.trim()) ? 'not a directory' : undefined),
  });
  return answer?.trim() || undefined;
}

async function askCutter(configured: string): Promise<string | undefined> {
  const command = configured.trim() !== BUILTIN_CUTTER ? configured.trim() : '';
  const picks = [
    { label: BUILTIN_CUTTER, detail: "ffmpeg's signals only (scenes, silences): always degraded, no ASR, no audio events; not AVCut" },
    { label: 'A cutter command…', detail: command || 'your AVCut: python3 …/avcut.py {input} --config {config} --output-root {staging}' },
  ];
  const pick = await vscode.window.showQuickPick(picks, { title: `${TITLE}: the cutter`, ignoreFocusOut: true });
  if (!pick) return undefined;
  if (pick.label === BUILTIN_CUTTER) return BUILTIN_CUTTER;
  return vscode.window.showInputBox({
    title: `${TITLE}: the cutter command`,
    prompt: 'Its argv (not a shell line); placeholders {input}, {config}, {staging}',
    value: command,
    ignoreFocusOut: true,
    validateInput: (v) => cutterProblem(v),
  });
}

/** Starts a cut; `root`: a cut run row's output root (resumed with the input root its last run read). */
export async function startCut(host: CutStartHost, root: string | undefined): Promise<void> {
  const s = readCutSettings();
  const known = root ? host.model.progress(root)?.inputRoot : undefined;
  const inputRoot = known ?? (await askPath('The input root: the source videos (.mp4 .mov .mkv …) directly in it', configuredInputRoot(s), true));
  if (!inputRoot) return;
  const outputRoot = root ?? (await askPath('The output root: one directory per video (segments.json, clips/)', configuredOutputRoot(s), false));
  if (!outputRoot) return;
  const cutter = await askCutter(s.cutter);
  if (!cutter) return;
  const [verb] = CUT_VERB.split(' ');
  const args = cutCliArgs({ inputRoot: path.resolve(inputRoot), outputRoot: path.resolve(outputRoot), cutter, allowDegraded: s.allowDegraded });
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? path.dirname(path.resolve(outputRoot));
  const said = await startDetached({ distDir: host.distDir, output: host.output, title: TITLE, verb, args, cwd });
  if (said === null) return;
  await host.model.add(path.resolve(outputRoot));
  await vscode.commands.executeCommand('fpsweep.progress.focus');
  void vscode.window.showInformationMessage(`fpsweep: cutting ${inputRoot} into ${outputRoot} in the background worker. ${said}`);
}
