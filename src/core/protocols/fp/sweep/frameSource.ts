// What the runner needs from the frame pipeline (src/core/protocols/fp/frames): for one video, the frames of each of
// its pending requests, made once. Data problems come back per request (`decode`, `no_video`); a
// rejected prepare() is fatal (disk, ffmpeg missing: not a data problem).
import type { VideoMeta } from '../package/schemas';
import type { SendPlan } from '../rules/plan';
import type { FrameRef } from '../../../serving/chatRequest';
import type { FramesPlacement } from '../frames/gpu/framesOn';
import type { FramesByPath } from '../frames/pipeline';

export interface FrameRequestSpec {
  key: string;
  plan: SendPlan;
}

export type PreparedRequestFrames =
  | { ok: true; decodeS: number; nFrames: number; images(): Promise<FrameRef[]> }
  | { ok: false; kind: 'decode' | 'no_video' | 'interrupted'; message: string; decodeS: number };

export interface PreparedVideoFrames {
  get(key: string): PreparedRequestFrames;
  /** Decode + encode seconds spent for this video in this call. */
  decodeS: number;
  release(key?: string): void;
}

/** What the run will ask of the frame source (sendPlan knows it before the servers start). */
export interface FramesNeed {
  /** Videos with at least one request that sends frames (every condition but v_blind). */
  videosWithFrames: number;
}

export interface FrameSource {
  prepare(hash: string, meta: VideoMeta, requests: FrameRequestSpec[]): Promise<PreparedVideoFrames>;
  /** Parallel preparations the source can do (the decode pool's size; on the GPU path the helpers' jobs too). */
  readonly concurrency: number;
  /** Of which on the CPU (the decode pool); absent: all of them. The run's quick head is two rounds of it. */
  readonly cpuConcurrency?: number;
  /** Where its frames are made and what the GPU probe found (absent: a source that does not say). */
  readonly placement?: FramesPlacement;
  /** Videos made on each path so far and their seconds (absent: a source that does not say). */
  framesByPath?(): Promise<FramesByPath>;
  /**
   * The run is stopping: running decodes end and none starts; their requests come back `interrupted` (issue 43).
   * Returns how many were under way.
   */
  stopDecodes?(): number;
  close(): Promise<void>;
}

/**
 * Videos the run starts with, quickest to prepare first (sendPlan: longestFirstWithinWindows' head): two rounds of the
 * CPU pool. Issue 45: on the GPU path `concurrency` also counts the helpers' jobs (4 + 4); a head of two rounds of
 * that put a 14-video run's long videos first, on the CPU, while the helpers warmed (5 long videos at 7.4 s each).
 */
export function quickHeadVideos(frames: Pick<FrameSource, 'concurrency' | 'cpuConcurrency'>): number {
  return 2 * (frames.cpuConcurrency ?? frames.concurrency);
}
