// Where a videos root keeps the caption run's files (SPEC-AVTIME-DATA §3). Everything of ours is under
// `VIDEOS_ROOT/.fpsweep-caption/`: per video, shared by every rank (a video belongs to one rank, shard.ts), the raw
// records `raw/<stem>.jsonl` and the outcome `videos/<stem>.json`; per rank, the engine's state (lock, status,
// stop file, logs): `.fpsweep-caption/` itself when the run is not sharded, `.fpsweep-caption/rank-K-of-N/` when it
// is, so ranks on one shared file system never share a lock. The captions themselves go beside the clips.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RankShard } from '../../clips/shard';
import type { RunRoot } from '../../runner/runRoot';

export const CAPTION_STATE_DIR = '.fpsweep-caption';
export const CAPTIONS_FILE = 'captions_merged.json';
export const SEGMENTS_FILE = 'segments.json';
const RANK_DIR = /^rank-(\d+)-of-(\d+)$/;

/** A rank of a sharded run, 1-based as on the CLI (`--shard K/N`). */
export type CaptionShard = RankShard;

export const rankDirName = (s: CaptionShard) => `rank-${s.index}-of-${s.count}`;

/** The engine's state of one rank (or of the unsharded run) of a videos root. */
export function captionRunRoot(root: string, shard: CaptionShard | null = null): RunRoot {
  const abs = path.resolve(root);
  const base = path.join(abs, CAPTION_STATE_DIR);
  const stateDir = shard ? path.join(base, rankDirName(shard)) : base;
  return {
    root: abs,
    stateDir,
    lockFile: path.join(stateDir, 'worker.lock'),
    statusFile: path.join(stateDir, 'status.json'),
    logsDir: path.join(stateDir, 'logs'),
    runnerLog: path.join(stateDir, 'logs', 'runner.log'),
  };
}

export class CaptionLayout {
  readonly root: string;
  readonly runRoot: RunRoot;
  constructor(
    root: string,
    readonly shard: CaptionShard | null = null,
  ) {
    this.root = path.resolve(root);
    this.runRoot = captionRunRoot(this.root, shard);
  }
  get stateBase(): string {
    return path.join(this.root, CAPTION_STATE_DIR);
  }
  videoDir(stem: string): string {
    return path.join(this.root, stem);
  }
  rawFile(stem: string): string {
    return path.join(this.stateBase, 'raw', `${stem}.jsonl`);
  }
  outcomeFile(stem: string): string {
    return path.join(this.stateBase, 'videos', `${stem}.json`);
  }
  captionsFile(stem: string): string {
    return path.join(this.root, stem, CAPTIONS_FILE);
  }
  get preflightFile(): string {
    return path.join(this.runRoot.logsDir, 'preflight.json');
  }
}

/** Every rank's engine state under the root: the unsharded one if it has a status or a lock, then each rank-K-of-N/. */
export async function listRankRoots(root: string): Promise<{ shard: CaptionShard | null; runRoot: RunRoot }[]> {
  const base = path.join(path.resolve(root), CAPTION_STATE_DIR);
  const entries = await fs.readdir(base, { withFileTypes: true }).catch(() => []);
  const out: { shard: CaptionShard | null; runRoot: RunRoot }[] = [];
  const plain = captionRunRoot(root);
  if (entries.some((e) => e.name === path.basename(plain.statusFile) || e.name === path.basename(plain.lockFile))) out.push({ shard: null, runRoot: plain });
  for (const e of entries) {
    const m = e.isDirectory() ? RANK_DIR.exec(e.name) : null;
    if (m) {
      const shard = { index: Number(m[1]), count: Number(m[2]) };
      out.push({ shard, runRoot: captionRunRoot(root, shard) });
    }
  }
  return out.sort((a, b) => (a.shard?.index ?? 0) - (b.shard?.index ?? 0));
}
