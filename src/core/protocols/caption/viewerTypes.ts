// The caption viewer's model as types (viewerModel.ts builds it; the webview bundle imports these, so no Node here).
import type { CaptionVideoState } from './progressTypes';

export interface ViewerClip {
  /** The segment's index in segments.json (1..n). */
  index: number;
  /** The clip's path relative to the video directory, or null when it was refused (`refused` says why). */
  clipPath: string | null;
  refused: string | null;
  /** On the full video's timeline, seconds. */
  start: number;
  end: number;
  /** What put the boundary at this clip's start: `start`, `asr`, `scene`, `audio`, `soft`… */
  source: string;
  confidence: number | null;
}

export interface ViewerCaption {
  /** On the full video's timeline, seconds (as captions_merged.json has them). */
  start: number;
  end: number;
  /** The caption as written (the webview shows it as text, never as markup). */
  caption: string;
  /** The position in `clips` of the clip holding `start`, and `start`'s offset into that clip (seconds). */
  clip: number;
  offset: number;
}

/** What cut the video (segments.json's `detectors`, and its `degraded` / `degraded_reason` when present). */
export interface ViewerCut {
  /** Each detector channel and what ran it (`unavailable`: none), in the file's order. */
  detectors: { channel: string; detector: string }[];
  /** The channels it ran without. */
  unavailable: string[];
  /** A channel unavailable, or the file says `degraded: true`. */
  degraded: boolean;
  degradedReason: string | null;
}

export interface VideoViewerModel {
  stem: string;
  inputVideo: string;
  /** The video's duration_sec. */
  duration: number;
  clips: ViewerClip[];
  cut: ViewerCut;
  /** Empty before captioning (a cut's clips and boundaries alone). */
  captions: ViewerCaption[];
  /** captions_merged.json exists (even when it could not be read: `problems` says so). */
  captioned: boolean;
  /** What the viewer could not use, in words (a bad timeline, a refused clip, an unreadable captions file). */
  problems: string[];
}

/** One row of the viewer's video picker. `state` null: the run type has not read this root (no progress yet). */
export interface PickerVideo {
  stem: string;
  state: CaptionVideoState | null;
  reason: string | null;
  /** The backend that made its outcome (`gemini`, `vllm`) when its outcome names one (issue 35). */
  backend?: string | null;
}
