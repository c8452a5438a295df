// Where a videos root keeps the caption run's files (SPEC-AVTIME-DATA §3). Everything of ours is under
// `VIDEOS_ROOT/.fpsweep-caption/`: per video, shared by every rank (a video belongs to one rank, shard.ts), the raw
// records `raw/<stem>.jsonl` and the outcome `videos/<stem>.json`; per rank, the engine's state (lock, status,
// stop file, logs): `.fpsweep-caption/` itself when the run is not sharded, `.fpsweep-caption/rank-K-of-N/` when it
// is, so ranks on one shared file system never share a lock. The captions themselves go beside the clips.
import * as path from 'node:path';
import type { RankShard } from '../../clips/shard';
import { serversFile } from '../../serving/leftovers';
import { listRankRoots as listRankRootsOf, rankDirName, rankRunRoot } from '../../runner/rankRoots';
import type { RunRoot } from '../../runner/runRoot';

export const CAPTION_STATE_DIR = '.fpsweep-caption';
export const CAPTIONS_FILE = 'captions_merged.json';
export const SEGMENTS_FILE = 'segments.json';
/** The Gemini backend's per-clip captions folder in a video's folder (gemini/clipFile.ts). */
export const CLIP_CAPTIONS_DIR = 'captions';

/** `<video>/captions/clip_NNNN.json`: one clip's captions from the Gemini backend. */
export const clipCaptionsFileIn = (videoDir: string, clip: number) => path.join(videoDir, CLIP_CAPTIONS_DIR, `clip_${String(clip).padStart(4, '0')}.json`);

/** A rank of a sharded run, 1-based as on the CLI (`--shard K/N`). */
export type CaptionShard = RankShard;

export { rankDirName };

/** The engine's state of one rank (or of the unsharded run) of a videos root. */
export const captionRunRoot = (root: string, shard: CaptionShard | null = null): RunRoot => rankRunRoot(root, CAPTION_STATE_DIR, shard);

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
  /** A launched server's log (servers.ts: one server per GPU group). */
  vllmLog(group: number): string {
    return path.join(this.runRoot.logsDir, `vllm_group${group}.log`);
  }
  /** The servers a launch started (the engine's serving/leftovers.ts), so a run after a kill -9 can stop them. */
  get serversRecord(): string {
    return serversFile(this.runRoot);
  }
  get launchParams(): string {
    return path.join(this.runRoot.logsDir, 'launch_params.txt');
  }
  /** The Gemini backend's ledger of uploads not yet deleted (gemini/uploadLedger.ts), per rank. */
  get geminiUploadsDir(): string {
    return path.join(this.runRoot.stateDir, 'gemini-uploads');
  }
  /** One clip's captions from the Gemini backend (gemini/clipFile.ts). */
  clipCaptionsFile(stem: string, clip: number): string {
    return clipCaptionsFileIn(this.videoDir(stem), clip);
  }
}

/** Every rank's engine state under the root: the unsharded one if it has a status or a lock, then each rank-K-of-N/. */
export const listRankRoots = (root: string) => listRankRootsOf(root, CAPTION_STATE_DIR);
