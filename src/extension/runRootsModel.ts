// The run roots of one run type that the progress tree shows, read through its engine half (findRoots,
// readProgress: the engine's generic path): the roots found in the folders it is told to search, and the roots
// started or followed in this window. A poll re-reads them (network file systems need one); it fires only when what
// the tree shows (`rowOf` of each snapshot) changed. Until the run type's engine half is in the build there is
// nothing to read. Used by every run type whose roots are found by searching folders (captions, cuts).
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { AnyProtocol, ProgressSnapshot } from '../core/protocols/types';
import { Disposable, toDisposable } from './lifecycle';

export class RunRootsModel<D> extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private folders: string[] = [];
  private readonly added = new Set<string>();
  private snapshots: ProgressSnapshot<D>[] = [];
  private shown = '';
  private reading = false;
  private again = false;

  constructor(
    private readonly engine: () => AnyProtocol | undefined,
    private readonly log: (line: string) => void,
    /** What the tree shows of a snapshot: a change of it fires onDidChange. */
    private readonly rowOf: (s: ProgressSnapshot<D>) => unknown,
    pollMs = 1500,
  ) {
    super();
    const timer = setInterval(() => void this.refresh(), pollMs);
    this._register(toDisposable(() => clearInterval(timer)));
  }

  get all(): readonly ProgressSnapshot<D>[] {
    return this.snapshots;
  }

  /** The progress of `root` (a real path), or null when the run type has not read it. */
  progress(root: string): D | null {
    return this.snapshots.find((s) => s.root === root)?.detail ?? null;
  }

  /** Where to look: each folder may be a run root or hold some directly under it. */
  setFolders(folders: string[]): void {
    this.folders = [...new Set(folders)];
    void this.refresh();
  }

  /** A root started or opened in this window: followed from now on. */
  async add(root: string): Promise<void> {
    this.added.add(await fs.realpath(root).catch(() => root));
    await this.refresh();
  }

  /** A root made elsewhere (a runbook step's output): followed when the run type recognises it as one of its roots. */
  async follow(root: string): Promise<void> {
    const protocol = this.engine();
    if (!protocol) return;
    const real = await fs.realpath(root).catch(() => root);
    const found = await protocol.findRoots(real).catch(() => [] as string[]);
    if (found.includes(real)) await this.add(real);
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
      const next: ProgressSnapshot<D>[] = [];
      for (const root of roots) {
        try {
          next.push((await protocol.readProgress(root)) as ProgressSnapshot<D>);
        } catch (err) {
          this.log(`${protocol.title} ${root}: ${(err as Error).message}`);
        }
      }
      this.snapshots = next;
      const shown = JSON.stringify(next.map(this.rowOf));
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
