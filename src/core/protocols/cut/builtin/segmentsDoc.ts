// The builtin cutter's segments.json (SPEC-AVTIME-DATA §2's fields, then ours): pure, from the fusion's result. It
// names itself (`cutter`) and its degradation (`degraded`, `degraded_reason`) in the file, so every view that reads it
// can say the cut is not AVCut's.
import { configToJson, type BuiltinCutConfig } from './config';
import type { FuseResult, Boundary } from './fuse';
import { SCENE_FLOOR_RATIO, toScdetScale } from './signals';

export const BUILTIN_CUTTER_NAME = 'fpsweep-builtin';
/** The detector channels the builtin cutter runs without. */
export const BUILTIN_DEGRADED = ['asr', 'audio_events'] as const;
export const BUILTIN_DEGRADED_REASON =
  'Degraded: the fpsweep builtin cutter is not AVCut. It has no ASR (no sentence ends) and no audio-event detector ' +
  '(no music or sound-effect onsets); its boundaries come only from ffmpeg scene scores and silences used as pause anchors.';

export const clipName = (index: number) => `clip_${String(index).padStart(4, '0')}`;

/** Names in `clips/` that look like clips but are not this cut's (`count` clips, sidecars or not); other files stay. */
export function staleClips(names: readonly string[], count: number, withMp3: boolean): string[] {
  return names.filter((n) => {
    const m = /^clip_(\d{4,})\.(mp4|mp3)$/.exec(n);
    if (!m) return false;
    const index = Number(m[1]);
    return !(index >= 1 && index <= count && clipName(index) === `clip_${m[1]}` && (m[2] === 'mp4' || withMp3));
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function boundaryJson(b: Boundary): Record<string, unknown> {
  if (b.source === 'scene') return { source: 'scene', confidence: b.confidence, shifted_to_pause: b.shiftedToPause, scene_sec: b.sceneSec };
  if (b.source === 'soft') return { source: 'soft', at_pause: b.atPause };
  return { source: b.source };
}

export function builtinSegmentsDoc(opts: {
  inputVideo: string;
  durationSec: number;
  config: BuiltinCutConfig;
  detectors: Record<string, string>;
  fused: FuseResult;
}): Record<string, unknown> {
  const { fused, config } = opts;
  return {
    input_video: opts.inputVideo,
    duration_sec: round3(opts.durationSec),
    cutter: BUILTIN_CUTTER_NAME,
    degraded: [...BUILTIN_DEGRADED],
    degraded_reason: BUILTIN_DEGRADED_REASON,
    detectors: opts.detectors,
    config: {
      ...configToJson(config),
      scdet_threshold: round3(toScdetScale(config.sceneThreshold)),
      scdet_floor: round3(toScdetScale(config.sceneThreshold) * SCENE_FLOOR_RATIO),
      threshold_mapping: 'scdet = PySceneDetect × 100 / 255 (an approximation: YUV mean absolute difference vs HSV content score)',
    },
    candidates: fused.counts,
    segments: fused.segments.map((s, i) => ({
      index: i + 1,
      clip_path: `clips/${clipName(i + 1)}.mp4`,
      start_sec: round3(s.startSec),
      end_sec: round3(s.endSec),
      duration_sec: round3(s.endSec - s.startSec),
      boundary: boundaryJson(s.boundary),
      labels: { audio: [], visual: [], joint: [] },
    })),
  };
}
