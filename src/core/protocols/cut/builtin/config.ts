// The builtin cutter's settings (issue 27 point 4): the seed's published AVCut defaults where the seed has them (scene
// threshold 24.0 on PySceneDetect's scale, min boundary gap 5.0 s, min segment 6.0 s, soft threshold 16.0 s, mp3
// sidecar on), ours for what only this cutter has (silence detection, the pause shift window). Read from the cut's
// --config YAML in readable snake_case keys; the same keys go back into segments.json's `config`.
import { z } from 'zod';
import { InputError } from '../../../errors';

export interface BuiltinCutConfig {
  /** Scene-change threshold on PySceneDetect's ContentDetector scale (0–255); signals.ts maps it to ffmpeg scdet's. */
  sceneThreshold: number;
  /** Two boundaries are at least this far apart (s); scene candidates closer than this are one cluster. */
  minBoundaryGapS: number;
  /** Every segment lasts at least this (s), unless the whole video is shorter. */
  minSegmentS: number;
  /** A segment longer than this (s) is split by soft boundaries. */
  softThresholdS: number;
  /** Write `clip_NNNN.mp3` beside each clip (the validator and captioning need it). */
  writeMp3Sidecar: boolean;
  /** Audio below this level (dBFS) is silence (ffmpeg silencedetect `noise`). */
  silenceNoiseDb: number;
  /** A silence lasting at least this (s) is a pause; its midpoint is a pause anchor (silencedetect `duration`). */
  silenceMinS: number;
  /** A scene boundary outside a pause moves to the nearest pause anchor at most this far away (s). */
  pauseShiftWindowS: number;
}

export const BUILTIN_DEFAULTS: BuiltinCutConfig = Object.freeze({
  sceneThreshold: 24.0,
  minBoundaryGapS: 5.0,
  minSegmentS: 6.0,
  softThresholdS: 16.0,
  writeMp3Sidecar: true,
  silenceNoiseDb: -35,
  silenceMinS: 0.3,
  pauseShiftWindowS: 1.5,
});

const positive = z.number({ invalid_type_error: 'a number of seconds' }).finite().positive();
const yamlSchema = z
  .object({
    scene_threshold: z.number({ invalid_type_error: 'a number (PySceneDetect scale, 0–255)' }).finite().min(0).max(255),
    min_boundary_gap_sec: positive,
    min_segment_sec: positive,
    soft_threshold_sec: positive,
    silence_noise_db: z.number({ invalid_type_error: 'a negative number of dBFS' }).finite().negative(),
    silence_min_sec: positive,
    pause_shift_window_sec: z.number({ invalid_type_error: 'a number of seconds' }).finite().min(0),
    render: z
      .object({ write_mp3_sidecar: z.boolean({ invalid_type_error: 'true or false' }) })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

/** The YAML / segments.json form of a config (snake_case; what builtinConfigFrom reads back). */
export function configToJson(c: BuiltinCutConfig): Record<string, unknown> {
  return {
    scene_threshold: c.sceneThreshold,
    min_boundary_gap_sec: c.minBoundaryGapS,
    min_segment_sec: c.minSegmentS,
    soft_threshold_sec: c.softThresholdS,
    silence_noise_db: c.silenceNoiseDb,
    silence_min_sec: c.silenceMinS,
    pause_shift_window_sec: c.pauseShiftWindowS,
    render: { write_mp3_sidecar: c.writeMp3Sidecar },
  };
}

function issueText(issue: z.ZodIssue): string {
  const at = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = issue.path.length ? 'write_mp3_sidecar' : Object.keys(yamlSchema.shape).join(', ');
    return issue.keys.map((k) => `unknown key "${at ? `${at}.${k}` : k}" (known: ${known})`).join('; ');
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) return `the builtin cutter's config must be a mapping of keys, not ${issue.received}`;
  if (issue.code === 'invalid_type') return `"${at}" must be ${issue.message.startsWith('Expected') ? issue.expected : issue.message}, not ${issue.received}`;
  return `"${at}": ${issue.message}`;
}

/**
 * From a parsed YAML document (js-yaml's load result; undefined or null = the defaults). Unknown keys are an
 * InputError naming the key; wrong types name the key and what was expected. `where` names the file in messages.
 */
export function builtinConfigFrom(doc: unknown, where: string): BuiltinCutConfig {
  const parsed = yamlSchema.safeParse(doc ?? {});
  if (!parsed.success) throw new InputError(`${where}: ${parsed.error.issues.map(issueText).join('; ')}`);
  const y = parsed.data;
  const c: BuiltinCutConfig = {
    sceneThreshold: y.scene_threshold ?? BUILTIN_DEFAULTS.sceneThreshold,
    minBoundaryGapS: y.min_boundary_gap_sec ?? BUILTIN_DEFAULTS.minBoundaryGapS,
    minSegmentS: y.min_segment_sec ?? BUILTIN_DEFAULTS.minSegmentS,
    softThresholdS: y.soft_threshold_sec ?? BUILTIN_DEFAULTS.softThresholdS,
    writeMp3Sidecar: y.render?.write_mp3_sidecar ?? BUILTIN_DEFAULTS.writeMp3Sidecar,
    silenceNoiseDb: y.silence_noise_db ?? BUILTIN_DEFAULTS.silenceNoiseDb,
    silenceMinS: y.silence_min_sec ?? BUILTIN_DEFAULTS.silenceMinS,
    pauseShiftWindowS: y.pause_shift_window_sec ?? BUILTIN_DEFAULTS.pauseShiftWindowS,
  };
  // The soft split needs room for two admissible pieces, else a long segment could not be split within the rules.
  // Compared in whole ms, as the fusion works (fuse.ts).
  const spacing = Math.max(c.minSegmentS, c.minBoundaryGapS);
  if (Math.round(c.softThresholdS * 1000) < 2 * Math.round(spacing * 1000)) {
    throw new InputError(
      `${where}: soft_threshold_sec (${c.softThresholdS}) must be at least twice max(min_segment_sec, min_boundary_gap_sec) = ${2 * spacing}, ` +
        'so a long segment can always be split into pieces that keep the minimums',
    );
  }
  return c;
}
