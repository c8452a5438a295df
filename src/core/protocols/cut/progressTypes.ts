// What the cut run type shows of an output root (SPEC-AVTIME-DATA §2): the `detail` of its ProgressSnapshot,
// `fpsweep status --package OUTPUT_ROOT --json`, the tree and the caption viewer's boundary list all read this one
// shape, computed read-only from the files of every rank (no Node imports here: the extension bundles it).

/** A source video's state, summed over the ranks: a video belongs to one rank (core/clips/shard.ts). */
export type CutVideoState = 'completed' | 'running' | 'failed' | 'pending';

export interface CutVideoEntry {
  /** The source's stem: its output directory's name under OUTPUT_ROOT. */
  stem: string;
  /** The source file's name under the input root. */
  source: string;
  state: CutVideoState;
  /** Segments of the published segments.json (completed), else 0. */
  segments: number;
  /** Detector channels the cut ran without ('asr', 'scene', 'audio_events'): a degraded cut, shown as such. */
  degraded: string[];
  /** Why it failed: the cutter's exit and log tail, the validator's rule, or the degradation; null unless failed. */
  reason: string | null;
  /** 'builtin' or the cutter's program name. */
  cutter: string | null;
  /** A completed video whose source changed since (size or mtime): it will be cut again (its state reads pending). */
  changed: boolean;
  /** The 0-based rank that owns it under the run's --shard, or null when not sharded. */
  rank: number | null;
}

export interface CutRankEntry {
  /** 0-based; `of` ranks in all. */
  rank: number;
  of: number;
  runId: string | null;
  /** Its worker holds its lock now. */
  live: boolean;
}

export interface CutProgressDetail {
  /** OUTPUT_ROOT, absolute. */
  root: string;
  /** The input root the last run read (from `.fpsweep-cut/run.json`), or null before any run. */
  inputRoot: string | null;
  total: number;
  completed: number;
  running: number;
  failed: number;
  pending: number;
  /** Completed videos whose cut is degraded (a detector unavailable). */
  degraded: number;
  /** Every discovered source video, by stem. */
  videos: CutVideoEntry[];
  ranks: CutRankEntry[];
}
