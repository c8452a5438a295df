// The AVTime runs the progress tree shows: every run folder under the outputs folders (the workspace's
// outputs/avtime-bench and fpsweep.avtime.outputRoot), found and read through the registry's run type
// (findRoots, readProgress) — live from its status file while its worker lives, else from its artifacts,
// recounted only when their stamp changed.
// A poll (network and container file systems need one) drives it; it says which runs changed.
import * as vscode from 'vscode';
import { artifactStamp, viewKey, type AvtimeRunView } from '../../../core/protocols/avtime/progress';
import { PROTOCOLS } from '../../../core/protocols/registry';
import { Disposable, toDisposable } from '../../lifecycle';
import { diffRuns, latestRun, type RunsDiff } from './avtimeTreeData';

const protocol = PROTOCOLS.get('avtime')!;

export class AvtimeModel extends Disposable {
  private readonly _onDidChangeRuns = this._register(new vscode.EventEmitter<RunsDiff>());
  readonly onDidChangeRuns = this._onDidChangeRuns.event;

  private dirs: string[] = [];
  private views = new Map<string, AvtimeRunView>();
  private keys = new Map<string, string>();
  private stamps = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private again = false;

  constructor(
    private readonly log: (line: string) => void,
    private readonly pollMs = 1500,
  ) {
    super();
    this._register(toDisposable(() => this.timer && clearInterval(this.timer)));
  }

  /** Follows the runs under these folders (re-reads at once). */
  setFolders(dirs: string[]): void {
    const next = [...new Set(dirs)].sort();
    if (next.join('\n') !== this.dirs.join('\n')) {
      this.dirs = next;
      this.stamps.clear();
    }
    if (!this.timer) this.timer = setInterval(() => void this.refresh(), this.pollMs);
    void this.refresh();
  }

  get runs(): AvtimeRunView[] {
    return [...this.views.values()];
  }

  get(root: string): AvtimeRunView | undefined {
    return this.views.get(root);
  }

  get latest(): AvtimeRunView | undefined {
    return latestRun(this.runs);
  }

  /** Re-reads every run; `force` recounts the artifacts even when their stamp has not changed. */
  async refresh(force = false): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      if (force) this.stamps.clear();
      const roots = [...new Set((await Promise.all(this.dirs.map((d) => protocol.findRoots(d)))).flat())];
      const next = new Map<string, AvtimeRunView>();
      for (const root of roots) {
        const old = this.views.get(root);
        try {
          const stamp = await artifactStamp(root);
          // A run with no live worker and unchanged files is what it was: no recount.
          if (old && !old.live && this.stamps.get(root) === stamp) {
            next.set(root, old);
            continue;
          }
          const v = (await protocol.readProgress(root)).detail as AvtimeRunView;
          next.set(root, v);
          this.stamps.set(root, stamp);
        } catch (err) {
          this.log(`AVTime run ${root}: ${(err as Error).message}`);
          if (old) next.set(root, old);
        }
      }
      const diff = diffRuns(this.keys, next);
      this.views = next;
      this.keys = new Map([...next].map(([k, v]) => [k, viewKey(v)]));
      if (diff.setChanged || diff.changed.length) this._onDidChangeRuns.fire(diff);
    } finally {
      this.reading = false;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    }
  }
}
