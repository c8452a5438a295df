// The videos roots the progress tree shows, read through the registry's caption run type (findRoots, readProgress:
// the engine's generic path): the configured root (`fpsweep.caption.videosRoot`), the roots found in the workspace
// folders, and the roots started or opened in this window. A poll re-reads them (network file systems need one);
// it fires only when what the tree shows changed. Until the run type's core is in the build there is nothing to read.
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { CaptionProgressDetail } from '../../../core/protocols/caption/progressTypes';
import type { AnyProtocol, ProgressSnapshot } from '../../../core/protocols/types';
import { Disposable, toDisposable } from '../../lifecycle';
import { captionRootRow } from './captionTreeRows';

export type CaptionSnapshot = ProgressSnapshot<CaptionProgressDetail>;

export class CaptionModel extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private folders: string[] = [];
  private readonly added = new Set<string>();
  private snapshots: CaptionSnapshot[] = [];
  private shown = '';
  private reading = false;
  private again = false;

  constructor(
    private readonly engine: () => AnyProtocol | undefined,
    private readonly log: (line: string) => void,
    pollMs = 1500,
  ) {
    super();
    const timer = setInterval(() => void this.refresh(), pollMs);
    this._register(toDisposable(() => clearInterval(timer)));
  }

  get all(): readonly CaptionSnapshot[] {
    return this.snapshots;
  }

  /** The progress of `root` (a real path), or null when the run type has not read it. */
  progress(root: string): CaptionProgressDetail | null {
    return this.snapshots.find((s) => s.root === root)?.detail ?? null;
  }

  /** Where to look: the configured root and the workspace folders (each may be a videos root or hold some). */
  setFolders(folders: string[]): void {
    this.folders = [...new Set(folders)];
    void this.refresh();
  }

  /** A root started or opened in this window: followed from now on. */
  async add(root: string): Promise<void> {
    this.added.add(await fs.realpath(root).catch(() => root));
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const protocol = this.engine();
    if (!protocol) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      const found = await Promise.all(this.folders.map((f) => protocol.findRoots(f).catch(() => [] as string[])));
      const roots = [...new Set([...found.flat(), ...this.added])].sort();
      const next: CaptionSnapshot[] = [];
      for (const root of roots) {
        try {
          next.push((await protocol.readProgress(root)) as CaptionSnapshot);
        } catch (err) {
          this.log(`captions ${root}: ${(err as Error).message}`);
        }
      }
      this.snapshots = next;
      const shown = JSON.stringify(next.map(captionRootRow));
      if (shown !== this.shown) {
        this.shown = shown;
        this.changed.fire();
      }
    } finally {
      this.reading = false;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    }
  }
}
