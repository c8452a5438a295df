// Where an output root keeps the cut's files (SPEC-AVTIME-DATA §2). The published video directories are
// `<output-root>/<stem>/`; a job cuts into its attempt's `<output-root>/.staging/<stem>/<runId>-<16 hex>/` (private); everything else of ours is under
// `<output-root>/.fpsweep-cut/`: the run's inputs (`run.json`), per video its state (`videos/<stem>.json`) and the
// cutter's log (`logs/videos/<stem>.log`), shared by every rank (a video belongs to one rank, core/clips/shard.ts);
// per rank the engine's state (lock, status, stop file, runner log): `.fpsweep-cut/` itself when unsharded,
// `.fpsweep-cut/rank-K-of-N/` when sharded.
import * as path from 'node:path';
import type { RankShard } from '../../clips/shard';
import { listRankRoots, rankRunRoot } from '../../runner/rankRoots';
import type { RunRoot } from '../../runner/runRoot';

export const CUT_STATE_DIR = '.fpsweep-cut';
export const STAGING_DIR = '.staging';
export const RUN_FILE = 'run.json';

export const cutRunRoot = (root: string, shard: RankShard | null = null): RunRoot => rankRunRoot(root, CUT_STATE_DIR, shard);
export const listCutRanks = (root: string) => listRankRoots(root, CUT_STATE_DIR);

export class CutLayout {
  readonly root: string;
  readonly runRoot: RunRoot;
  constructor(
    root: string,
    readonly shard: RankShard | null = null,
  ) {
    this.root = path.resolve(root);
    this.runRoot = cutRunRoot(this.root, shard);
  }
  get stateBase(): string {
    return path.join(this.root, CUT_STATE_DIR);
  }
  get runFile(): string {
    return path.join(this.stateBase, RUN_FILE);
  }
  get stagingBase(): string {
    return path.join(this.root, STAGING_DIR);
  }
  /** A video's staging folder: its attempts' directories, removed whole before each attempt and after a publish. Each
   * attempt's own directory in it, the cutter's {staging}, is a fresh private folder (mode 0700, its run's id and 16
   * random hex: cutVideo.ts), so nothing can be planted in it and an orphaned cutter (still writing into its old one
   * after a killed worker) never writes into the directory a later attempt publishes. */
  stemStagingDir(stem: string): string {
    return path.join(this.stagingBase, stem);
  }
  /** An earlier published directory, moved aside while the new one is renamed in (publish.ts). */
  asideDir(stem: string): string {
    return path.join(this.stagingBase, `${stem}.previous`);
  }
  finalDir(stem: string): string {
    return path.join(this.root, stem);
  }
  stateFile(stem: string): string {
    return path.join(this.stateBase, 'videos', `${stem}.json`);
  }
  /** The records of cutters under way (cutterRecords.ts), shared by every rank. */
  get cutterRecordsDir(): string {
    return path.join(this.stateBase, 'cutters');
  }
  cutterRecord(stem: string): string {
    return path.join(this.cutterRecordsDir, `${stem}.json`);
  }
  videoLog(stem: string): string {
    return path.join(this.stateBase, 'logs', 'videos', `${stem}.log`);
  }
}
