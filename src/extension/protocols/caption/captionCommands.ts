// The caption palette commands: "Start captioning" (`fpsweep avtime caption ROOT … --detach`, the engine's detached
// worker, as "Start AVTime run" starts its run) and "Open caption viewer" (a videos root, from a tree row or asked).
// Neither computes anything.
import * as vscode from 'vscode';
import { startDetached } from '../../cliStart';
import { isDirectory } from '../../sectionSettings';
import type { TreeNode } from '../../progressNodes';
import type { UiCommand } from '../types';
import type { CaptionModel } from './captionModel';
import { configuredVideosRoot, readCaptionSettings } from './captionSettings';
import {
  BACKEND_PICKS,
  CAPTION_VERB,
  captionCliArgs,
  GEMINI_KEY_SECRET,
  geminiCliArgs,
  geminiKeyEnv,
  geminiModelDefault,
  parseServersAnswer,
  settingsServers,
  type CaptionSettings,
} from './captionSettingsModel';
import { openInSystemPlayer } from './systemPlayer';
import { listVideoStems } from './viewerFiles';
import { OPEN_IN_SYSTEM_PLAYER } from './viewerPanel';

export interface CaptionCommandHost {
  distDir: string;
  model: CaptionModel;
  output: vscode.OutputChannel;
  secrets: vscode.SecretStorage;
  openViewer(root: string, stem?: string): Promise<void>;
}

export class CaptionCommands {
  readonly commands: UiCommand[] = [
    { id: 'fpsweep.caption.start', run: () => this.start() },
    { id: 'fpsweep.caption.setGeminiKey', run: () => this.setGeminiKey() },
    { id: 'fpsweep.caption.viewer', run: (node?: unknown) => this.viewer(node as TreeNode | undefined) },
    { id: OPEN_IN_SYSTEM_PLAYER, run: (uri?: unknown) => openInSystemPlayer(uri) },
  ];

  constructor(private readonly host: CaptionCommandHost) {}

  private async askRoot(title: string, value: string | undefined): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title,
      prompt: 'The videos root: one directory per video, each with segments.json and clips/',
      value: value ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '',
      ignoreFocusOut: true,
      validateInput: (v) => (isDirectory(v.trim()) ? undefined : 'not a directory'),
    });
  }

  private async start(): Promise<void> {
    const s = readCaptionSettings();
    const root = (await this.askRoot('fpsweep: Start captioning', configuredVideosRoot(s)))?.trim();
    if (!root) return;
    const pick = await vscode.window.showQuickPick(
      BACKEND_PICKS.map((b) => ({ ...b })),
      { title: 'fpsweep: Start captioning — which backend?', ignoreFocusOut: true },
    );
    if (!pick) return;
    if (pick.backend === 'gemini') return this.startGemini(root, s);
    let servers = settingsServers(s);
    if (!servers) {
      const answer = await vscode.window.showInputBox({
        title: 'fpsweep: Start captioning',
        prompt: 'Endpoints serving the model (http://host:port, comma separated), or a model path for the engine to serve',
        ignoreFocusOut: true,
        validateInput: (v) => {
          const p = parseServersAnswer(v);
          return 'error' in p ? p.error : undefined;
        },
      });
      if (!answer) return;
      const p = parseServersAnswer(answer);
      if ('error' in p) return;
      servers = p;
    }
    const [verb, ...sub] = CAPTION_VERB.split(' ');
    const args = [...sub, ...captionCliArgs(root, servers, s)];
    const said = await startDetached({ distDir: this.host.distDir, output: this.host.output, title: 'fpsweep: Start captioning', verb, args, cwd: root });
    if (said === null) return;
    await this.host.model.add(root);
    await vscode.commands.executeCommand('fpsweep.progress.focus');
    void vscode.window.showInformationMessage(`fpsweep: captioning ${root} in the background worker. ${said}`);
  }

  /** Gemini: the model (asked, the setting's Gemini model offered), the key from SecretStorage (asked once). */
  private async startGemini(root: string, s: CaptionSettings): Promise<void> {
    const model = await vscode.window.showInputBox({
      title: 'fpsweep: Start captioning with Gemini',
      prompt: 'The Gemini model',
      value: geminiModelDefault(s),
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'name a Gemini model'),
    });
    if (!model?.trim()) return;
    const key = (await this.host.secrets.get(GEMINI_KEY_SECRET)) ?? (await this.askGeminiKey());
    if (!key) return;
    const [verb, ...sub] = CAPTION_VERB.split(' ');
    const args = [...sub, ...geminiCliArgs(root, model)];
    const said = await startDetached({
      distDir: this.host.distDir,
      output: this.host.output,
      title: 'fpsweep: Start captioning',
      verb,
      args,
      cwd: root,
      env: geminiKeyEnv(key),
    });
    if (said === null) return;
    await this.host.model.add(root);
    await vscode.commands.executeCommand('fpsweep.progress.focus');
    void vscode.window.showInformationMessage(`fpsweep: captioning ${root} with Gemini in the background worker. ${said}`);
  }

  /** Asks for the key and keeps it in SecretStorage; undefined when none was given. */
  private async askGeminiKey(): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title: 'fpsweep: Gemini API key',
      prompt: 'From https://aistudio.google.com/app/apikey. Kept in VS Code SecretStorage only, passed to the worker by its environment.',
      password: true,
      ignoreFocusOut: true,
    });
    if (!value?.trim()) return undefined;
    await this.host.secrets.store(GEMINI_KEY_SECRET, value.trim());
    return value.trim();
  }

  /** "Set Gemini API key": replaces the kept key; an empty answer removes it. */
  private async setGeminiKey(): Promise<void> {
    const value = await vscode.window.showInputBox({
      title: 'fpsweep: Gemini API key',
      prompt: 'Kept in VS Code SecretStorage only. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return;
    if (value.trim() === '') {
      await this.host.secrets.delete(GEMINI_KEY_SECRET);
      void vscode.window.showInformationMessage('fpsweep: Gemini API key removed.');
    } else {
      await this.host.secrets.store(GEMINI_KEY_SECRET, value.trim());
      void vscode.window.showInformationMessage('fpsweep: Gemini API key stored in SecretStorage.');
    }
  }

  /** From a row of the tree: its root (and its video); else the one root known, a pick of several, or asked. */
  private async viewer(node?: TreeNode): Promise<void> {
    // Any row of a videos root: a caption root's or a video's, or a cut's output root (also a videos root) or its video.
    if (node?.row.root) {
      const stem = (node.row.data as { stem?: unknown } | undefined)?.stem;
      return this.host.openViewer(node.row.root, typeof stem === 'string' ? stem : undefined);
    }
    const roots = await this.knownRoots();
    if (roots.length === 1) return this.host.openViewer(roots[0]);
    if (roots.length > 1) {
      const pick = await vscode.window.showQuickPick(roots, { title: 'fpsweep: Open caption viewer' });
      if (pick) await this.host.openViewer(pick);
      return;
    }
    const root = (await this.askRoot('fpsweep: Open caption viewer', undefined))?.trim();
    if (root) await this.host.openViewer(root);
  }

  /** The roots the tree shows, the configured one, and workspace folders that hold video directories themselves. */
  private async knownRoots(): Promise<string[]> {
    const roots = this.host.model.all.map((s) => s.root);
    try {
      const configured = configuredVideosRoot(readCaptionSettings());
      if (configured && isDirectory(configured)) roots.push(configured);
    } catch {
      // A bad setting: the other roots are still offered.
    }
    for (const f of vscode.workspace.workspaceFolders ?? []) if ((await listVideoStems(f.uri.fsPath)).length) roots.push(f.uri.fsPath);
    return [...new Set(roots)];
  }
}
