// The builtin cutter's signals: ONE ffmpeg pass over the source, video through `scdet` (scene scores) and audio through
// `silencedetect` (pauses), both read from ffmpeg's log by pure parsers.
//
// Threshold mapping (an approximation, not an equivalence): PySceneDetect's ContentDetector scores a frame by the mean
// absolute change of its H, S and V channels on a 0–255 scale (AVCut's default threshold 24.0). ffmpeg's scdet
// scores min(MAFD, |MAFD − previous MAFD|), MAFD being the mean absolute difference of all YUV planes as a percentage
// of full scale (0–100; libavfilter/vf_scdet.c). Both are a mean per-pixel change over full scale, so we map linearly:
// scdet = PySceneDetect × 100 / 255 (24.0 → 9.41, close to scdet's own default 10). They differ in colour space (HSV vs
// YUV: a pure hue change with equal luma scores lower here) and scdet's subtraction of the previous MAFD damps cuts
// inside steady fast motion; treat the threshold as the same knob, not the same cut list.
import { runFfmpegLog } from './exec';
import type { Pause, SceneCandidate } from './fuse';

/** PySceneDetect's scale (0–255) → scdet's (0–100). */
export const toScdetScale = (pyscenedetect: number) => (pyscenedetect * 100) / 255;
/** scdet's scale (0–100) → PySceneDetect's (0–255). */
export const fromScdetScale = (scdet: number) => (scdet * 255) / 100;
/**
 * scdet is asked for changes above this fraction of the threshold, so the fusion sees (and counts as below the
 * threshold) the near misses without ffmpeg logging every frame.
 */
export const SCENE_FLOOR_RATIO = 0.5;

export interface Signals {
  /** Scores on PySceneDetect's scale. */
  scenes: SceneCandidate[];
  pauses: Pause[];
}

const num = String.raw`(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|nan|inf)`;
const SCENE_RE = new RegExp(String.raw`^\[scdet @ [^\]]+\] lavfi\.scd\.score: ${num}, lavfi\.scd\.time: ${num}`, 'i');
const SILENCE_START_RE = new RegExp(String.raw`^\[silencedetect @ [^\]]+\] silence_start: ${num}`, 'i');
const SILENCE_END_RE = new RegExp(String.raw`^\[silencedetect @ [^\]]+\] silence_end: ${num}`, 'i');

/**
 * Pure: ffmpeg's log of the signals pass → scene candidates (in log order) and pauses. A silence still open at the
 * end of the log lasts to `durationSec`; lines of other filters and unparsable numbers are ignored.
 */
export function parseSignalLog(text: string, durationSec: number): Signals {
  const scenes: SceneCandidate[] = [];
  const pauses: Pause[] = [];
  let open: number | null = null;
  for (const line of text.split(/\r?\n/)) {
    let m = SCENE_RE.exec(line);
    if (m) {
      const score = Number(m[1]);
      const t = Number(m[2]);
      if (Number.isFinite(score) && Number.isFinite(t)) scenes.push({ t, score: fromScdetScale(score) });
      continue;
    }
    m = SILENCE_START_RE.exec(line);
    if (m) {
      const t = Number(m[1]);
      // A negative start (silencedetect subtracts the min duration at the very beginning) is the video's start.
      if (Number.isFinite(t)) open = Math.max(0, t);
      continue;
    }
    m = SILENCE_END_RE.exec(line);
    if (m && open !== null) {
      const t = Number(m[1]);
      if (Number.isFinite(t) && t > open) pauses.push({ start: open, end: t });
      open = null;
    }
  }
  if (open !== null && durationSec > open) pauses.push({ start: open, end: durationSec });
  return { scenes, pauses };
}

/** Pure: the signals pass's arguments (decoding on one thread, so jobs × cores holds). */
export function signalArgs(input: string, opts: { sceneThreshold: number; silenceNoiseDb: number; silenceMinS: number }): string[] {
  const scdet = (toScdetScale(opts.sceneThreshold) * SCENE_FLOOR_RATIO).toFixed(3);
  const graph = `[0:v:0]scdet=threshold=${scdet}[v];[0:a:0]silencedetect=noise=${opts.silenceNoiseDb}dB:duration=${opts.silenceMinS}[a]`;
  return [
    '-hide_banner',
    '-nostats',
    '-nostdin',
    '-loglevel',
    'info',
    '-threads',
    '1',
    '-i',
    input,
    '-filter_complex_threads',
    '1',
    '-filter_complex',
    graph,
    '-map',
    '[v]',
    '-map',
    '[a]',
    '-f',
    'null',
    '-',
  ];
}

/** Runs the one signals pass over `input` and parses it. Throws with ffmpeg's words; honors `signal`. */
export async function readSignals(
  input: string,
  durationSec: number,
  opts: { sceneThreshold: number; silenceNoiseDb: number; silenceMinS: number },
  signal?: AbortSignal,
): Promise<Signals> {
  const log = await runFfmpegLog(signalArgs(input, opts), `read the scene and silence signals of ${input}`, signal);
  return parseSignalLog(log, durationSec);
}
