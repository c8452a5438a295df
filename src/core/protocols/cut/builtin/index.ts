// `--cutter builtin` of the cut run type (issue 27 point 4): a cutter of ours from ffmpeg's signals only, with AVCut's
// published defaults. It is degraded by construction (no ASR, no audio events) and says so in its detectors, in
// segments.json (`degraded`, `degraded_reason`) and in the first line of its log.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { probeAv } from '../../../media/ffmpeg';
import { writeFileAtomic } from '../../../runner/atomicFile';
import type { BuiltinCutConfig } from './config';
import { fuseBoundaries } from './fuse';
import { renderClip } from './render';
import { BUILTIN_DEGRADED_REASON, builtinSegmentsDoc, clipName, staleClips } from './segmentsDoc';
import { readSignals } from './signals';
import { mkdirUnder, removeUnder } from '../../../containment/rootFs';

export { BUILTIN_DEFAULTS, builtinConfigFrom, configToJson, type BuiltinCutConfig } from './config';
export { BUILTIN_CUTTER_NAME, BUILTIN_DEGRADED, BUILTIN_DEGRADED_REASON } from './segmentsDoc';

export const BUILTIN_DETECTORS = { asr: 'unavailable', scene: 'ffmpeg-scdet', audio_events: 'unavailable' } as const;

/**
 * Cuts `input` into `videoDir` (created; holds segments.json + clips/clip_NNNN.mp4 + .mp3). Throws on any failure
 * with ffmpeg's words. `log` gets human lines (they go to the per-video log). Honors `signal` (kills ffmpeg).
 */
export async function cutBuiltin(opts: {
  input: string;
  videoDir: string;
  config: BuiltinCutConfig;
  log: (line: string) => void;
  signal?: AbortSignal;
}): Promise<{ segments: number; durationSec: number }> {
  const { config, log, signal } = opts;
  const input = path.resolve(opts.input);
  log(`builtin cutter (${BUILTIN_DEGRADED_REASON})`);
  signal?.throwIfAborted();
  const probed = await probeAv(input);
  if (!probed.hasVideo || probed.videoDurationS === null) throw new Error(`${input} has no video stream: nothing to cut`);
  if (!probed.hasAudio) throw new Error(`${input} has no audio stream: the builtin cutter needs one (pause anchors and the mp3 sidecar come from it)`);
  // The video stream's length: the last clip must have video up to the segment's end (the validator's rule).
  const durationSec = Math.round(probed.videoDurationS * 1000) / 1000;
  if (!(durationSec > 0)) throw new Error(`${input}: ffprobe gives a video stream of ${probed.videoDurationS} s`);
  const t0 = performance.now();
  const signals = await readSignals(input, durationSec, config, signal);
  const fused = fuseBoundaries({ durationSec, ...signals }, config);
  const c = fused.counts;
  log(
    `signals in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${c.scene} scene candidates (${c.scene_kept} kept, ${c.shifted} shifted to a pause), ` +
      `${c.pauses} pauses, ${c.soft} soft boundaries (${c.soft_at_pause} at a pause) → ${fused.segments.length} segments over ${durationSec} s`,
  );
  if (!config.writeMp3Sidecar) log('warning: render.write_mp3_sidecar is false: no mp3 sidecars, so the cut will not pass the validator');

  const clips = path.join(opts.videoDir, 'clips');
  await mkdirUnder(opts.videoDir, clips);
  const t1 = performance.now();
  for (const [i, s] of fused.segments.entries()) {
    const mp4 = path.join(clips, `${clipName(i + 1)}.mp4`);
    await renderClip(input, { startSec: s.startSec, endSec: s.endSec, mp4, mp3: config.writeMp3Sidecar ? mp4.replace(/\.mp4$/, '.mp3') : null }, signal);
  }
  log(`${fused.segments.length} clips in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  // A directory cut before (a retry into the same staging path) may hold clips this cut does not make.
  for (const name of staleClips(await fs.readdir(clips), fused.segments.length, config.writeMp3Sidecar)) {
    await removeUnder(opts.videoDir, path.join(clips, name));
    log(`removed ${name}, left by an earlier cut into ${opts.videoDir}`);
  }
  const doc = builtinSegmentsDoc({ inputVideo: input, durationSec, config, detectors: { ...BUILTIN_DETECTORS }, fused });
  await writeFileAtomic(opts.videoDir, path.join(opts.videoDir, 'segments.json'), JSON.stringify(doc, null, 2) + '\n');
  return { segments: fused.segments.length, durationSec };
}
