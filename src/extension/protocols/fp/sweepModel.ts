// The model behind the tree and the status bar. It follows `.fpsweep/status.json` (fs.watch for speed,
// a poll as the fallback that network and container file systems need) and, when no worker is alive,
// counts the artifacts with the core's dry run in a child process. All I/O is async: the extension
// host never waits on the disk or the worker.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { isFpPackage } from '../../../core/protocols/fp';
import { PackageLayout } from '../../../core/protocols/fp/package/layout';
import type { WorkerStatus } from '../../../core/protocols/fp/status/statusSchema';
import { readStatus } from '../../../core/protocols/fp/status/status';
import { isWorkerAlive } from '../../../core/runner/control';
import { Disposable, toDisposable } from '../../lifecycle';
import { dryRunJsonSchema, fromDryRun, fromWorkerStatus, type ProgressView } from '../../../core/protocols/fp/progress';
import { errorLine, startCli } from '../../cli';
import { parseBoundedJson } from '../../../core/io/boundedJson';

export interface ModelEnv {
  distDir: string;
  env(): Record<string, string>;
  log(line: string): void;
}

export class SweepModel extends Disposable {
  private readonly _onDidChangeData = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeData = this._onDidChangeData.event;

  private layout: PackageLayout | undefined;
  private view: ProgressView | undefined;
  private problem: string | undefined;
  private notAPackage = false;
  private lastStamp = '';
  private lastLive = false;
  private lastStatus: WorkerStatus | undefined;
  private reading = false;
  private rereadAfter = false;
  private dryRunning = false;
  private watchers: fs.FSWatcher[] = [];
  private pollTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly envs: ModelEnv,
    private readonly pollMs = 1000,
  ) {
    super();
    this._register(toDisposable(() => this.stopWatching()));
  }

  get packageDir(): string | undefined {
    return this.layout?.root;
  }
  get current(): ProgressView | undefined {
    return this.view;
  }
  /** Why there is nothing to show (no package, dry run not available, a bad status file). */
  /** The followed folder is not a Frames × Pixels package (no items/samples/, no results): nothing to count. */
  get notPackage(): boolean {
    return this.notAPackage;
  }

  get message(): string | undefined {
    return this.problem;
  }
  get isLive(): boolean {
    return this.view?.live === true;
  }

  /** Follows the package at `dir` (or nothing). Re-reads at once. */
  setPackage(dir: string | undefined): void {
    if (dir && this.layout?.root === new PackageLayout(dir).root) {
      void this.refresh();
      return;
    }
    this.stopWatching();
    this.layout = dir ? new PackageLayout(dir) : undefined;
    this.view = undefined;
    this.lastStatus = undefined;
    this.lastLive = false;
    this.lastStamp = '';
    this.problem = dir ? undefined : 'Open a run package folder, or set fpsweep.packagePath.';
    this.notAPackage = false;
    this._onDidChangeData.fire();
    if (!this.layout) return;
    this.startWatching();
    void this.refresh(true);
  }

  /** Re-reads the status file; without a live worker, recounts the artifacts. */
  async refresh(forceCount = false): Promise<void> {
    this.lastStamp = '';
    await this.readStatus(forceCount);
  }

  private startWatching(): void {
    const layout = this.layout!;
    // Watch the package root (sees .fpsweep appear) and .fpsweep itself (sees status.json renamed in).
    for (const dir of [layout.root, layout.stateDir]) {
      try {
        const w = fs.watch(dir, { persistent: false }, () => void this.readStatus(false));
        w.on('error', () => undefined); // The poll below still runs.
        this.watchers.push(w);
      } catch {
        // Not there yet (or not watchable): the poll covers it.
      }
    }
    this.pollTimer = setInterval(() => void this.readStatus(false), this.pollMs);
  }

  private stopWatching(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  private async readStatus(forceCount: boolean): Promise<void> {
    const layout = this.layout;
    if (!layout) return;
    if (this.reading) {
      this.rereadAfter = true;
      return;
    }
    this.reading = true;
    try {
      let stat: fs.Stats | undefined;
      try {
        stat = await fs.promises.stat(layout.statusFile);
      } catch {
        stat = undefined;
      }
      const stamp = stat ? `${stat.mtimeMs}:${stat.size}` : 'none';
      let status: WorkerStatus | undefined;
      if (stat && stamp !== this.lastStamp) {
        status = (await readStatus(layout)) ?? undefined;
        if (!status) this.envs.log(`status file ${layout.statusFile}: not a status this extension understands`);
        this.lastStatus = status;
      } else if (!stat) {
        this.lastStatus = undefined;
      }
      // The lock says whether a worker lives; checked every poll, since a killed worker writes nothing more.
      const alive = this.lastStatus ? await isWorkerAlive(layout) : false;
      if (stamp === this.lastStamp && !forceCount && alive === this.lastLive) return;
      if (!status && alive === this.lastLive && !forceCount) {
        this.lastStamp = stamp;
        return;
      }
      status ??= this.lastStatus;
      this.lastStamp = stamp;
      if (status && alive) {
        this.lastLive = true;
        this.view = fromWorkerStatus(status, true);
        this.problem = undefined;
        this._onDidChangeData.fire();
        return;
      }
      // No live worker: the artifacts are the truth. Show the last status meanwhile (marked not live).
      const wasLive = this.lastLive;
      this.lastLive = false;
      if (status) {
        this.view = fromWorkerStatus(status, false);
        this._onDidChangeData.fire();
      }
      if (forceCount || wasLive || !this.view || this.view.source === 'worker') void this.countArtifacts();
    } finally {
      this.reading = false;
      if (this.rereadAfter) {
        this.rereadAfter = false;
        void this.readStatus(false);
      }
    }
  }

  private async countArtifacts(): Promise<void> {
    const layout = this.layout;
    if (!layout || this.dryRunning) return;
    this.dryRunning = true;
    try {
      // A folder that is no package (a caption videos root, a tally root) is said so, not run through a dry run
      // that can only fail on it.
      const isPackage = await isFpPackage(layout.root);
      if (this.layout !== layout) return;
      if (this.notAPackage !== !isPackage) {
        this.notAPackage = !isPackage;
        this._onDidChangeData.fire();
      }
      if (!isPackage) {
        this.view = undefined;
        this.problem = `${layout.root} is not a Frames × Pixels package (no items/samples/, no results.csv): open one, or set fpsweep.packagePath.`;
        this._onDidChangeData.fire();
        return;
      }
      const r = await startCli({
        distDir: this.envs.distDir,
        verb: 'dry-run',
        args: ['--package', layout.root, '--json'],
        env: this.envs.env(),
        cwd: layout.root,
      }).done;
      if (this.layout !== layout || this.lastLive) return;
      if (r.code !== 0) {
        this.problem = `Dry run failed (exit ${r.code}): ${errorLine(r.stderr)}`;
        this.envs.log(r.stderr);
      } else {
        try {
          const parsed = dryRunJsonSchema.parse(parseBoundedJson(r.stdout));
          const counted = fromDryRun(parsed);
          // Keep the servers and summary of the last run for context; counts come from the artifacts.
          this.view = this.view
            ? {
                ...counted,
                runId: this.view.runId,
                startedAt: this.view.startedAt,
                summary: this.view.summary,
                state: this.view.state,
                mode: this.view.mode,
                message: this.view.message,
              }
            : counted;
          this.problem = undefined;
        } catch (err) {
          this.problem = `Dry run printed something unexpected: ${(err as Error).message.slice(0, 200)}`;
        }
      }
      this._onDidChangeData.fire();
    } finally {
      this.dryRunning = false;
    }
  }
}
