// What the caption run type shows of a videos root (SPEC-AVTIME-DATA §3, Progress): the `detail` of its
// ProgressSnapshot, `fpsweep status --package VIDEOS_ROOT --json`, the tree and the caption viewer all read this
// one shape, computed from the files of every rank (read-only).

/** A video directory's state, summed over the ranks: a video belongs to one rank (shard.ts). */
export type CaptionVideoState = 'completed' | 'running' | 'failed' | 'pending';

export interface CaptionVideoEntry {
  /** The directory's name under VIDEOS_ROOT. */
  stem: string;
  state: CaptionVideoState;
  /** Clips in its segments.json as its last attempt read it; null for a pending video (status reads no
   * segments.json: it stays fast on 50k videos), 0 when the file could not be read. */
  clips: number | null;
  /** Clips with an accepted answer in the current attempt of the video (raw records). */
  clipsDone: number;
  /** Why it failed: the validator's rule or the server's words; null unless failed. */
  reason: string | null;
  /** The 0-based rank that owns it under the run's --shard, or null when not sharded. */
  rank: number | null;
  /** Which backend made its outcome (`vllm`, `gemini`), and its model; null while it has none. */
  backend?: string | null;
  model?: string | null;
  /** Tokens its backend reported for it (Gemini), or null. */
  tokens?: number | null;
}

export interface CaptionRankEntry {
  /** 0-based; `of` ranks in all. */
  rank: number;
  of: number;
  runId: string | null;
  /** Its worker holds its lock now. */
  live: boolean;
}

export interface CaptionProgressDetail {
  /** VIDEOS_ROOT, absolute. */
  root: string;
  total: number;
  completed: number;
  running: number;
  failed: number;
  pending: number;
  /** Direct child directories without a segments.json, by name. */
  untracked: string[];
  /** Children refused as video directories (a symbolic link), with why (issue 33); absent before it. */
  refused?: { name: string; reason: string }[];
  /** Every tracked video, by stem. */
  videos: CaptionVideoEntry[];
  ranks: CaptionRankEntry[];
  /** Videos with an outcome, by the backend that made it. */
  backends?: Record<string, number>;
  /** Tokens reported over every video's outcome (Gemini's usageMetadata), summed. */
  tokens?: { prompt: number; candidates: number; total: number };
}
