// ffprobe as the caption run's media probe: one call per file gives what the validator checks (segments.ts's
// MediaFacts: each stream's duration), what the request needs (the clip's frame count and duration, request.ts)
// and what the pre-flight predicts from (frame size, the sidecar's samples; serving/models/qwen3Omni/counts.ts).
import { FFPROBE_ENTRIES, ProbeJson as probeSchema, ratio } from '../serving/models/qwen3Omni/mediaFacts';
import type { MediaFacts as StreamDurations } from './segments';
import { parseBoundedJson } from '../io/boundedJson';
import { ChildStopped, childStopped, stoppedFromOutside } from '../media/stoppedChild';

export interface ClipMediaFacts extends StreamDurations {
  /** Video stream: frames, size; null without one. */
  video: { totalFrames: number; width: number; height: number } | null;
  /** Audio stream: sample rate and samples; null without one. */
  audio: { sampleRate: number; samples: number } | null;
}

/** Pure: ffprobe's JSON → the facts; a stream whose length cannot be told counts as absent. */
export function clipFactsFromProbe(json: unknown): ClipMediaFacts {
  const j = probeSchema.parse(json);
  const formatDuration = Number(j.format.duration);
  const v = j.streams.find((s) => s.codec_type === 'video');
  const a = j.streams.find((s) => s.codec_type === 'audio');
  let video: ClipMediaFacts['video'] = null;
  let videoDurationS: number | null = null;
  if (v && v.width && v.height) {
    const fps = Number.isFinite(ratio(v.avg_frame_rate)) ? ratio(v.avg_frame_rate) : ratio(v.r_frame_rate);
    const duration = Number(v.duration ?? formatDuration);
    const counted = Number(v.nb_frames);
    const totalFrames = Number.isInteger(counted) && counted > 0 ? counted : Math.round(duration * fps);
    if (totalFrames > 0 && duration > 0) {
      video = { totalFrames, width: v.width, height: v.height };
      videoDurationS = duration;
    }
  }
  let audio: ClipMediaFacts['audio'] = null;
  let audioDurationS: number | null = null;
  if (a) {
    const sampleRate = Number(a.sample_rate);
    const duration = Number(a.duration ?? formatDuration);
    const exact = a.time_base === `1/${sampleRate}` && Number.isInteger(a.duration_ts) ? a.duration_ts! : NaN;
    const samples = Number.isFinite(exact) ? exact : Math.round(duration * sampleRate);
    if (sampleRate > 0 && samples > 0) {
      audio = { sampleRate, samples };
      audioDurationS = samples / sampleRate;
    }
  }
  return { video, audio, videoDurationS, audioDurationS };
}

/** One ffprobe per file for the life of the returned probe (the validator and the request ask of the same clip). */
export function ffprobeClipProbe(ffprobe = process.env.FFPROBE_BIN || 'ffprobe'): (file: string) => Promise<ClipMediaFacts> {
  const memo = new Map<string, Promise<ClipMediaFacts>>();
  return (file) => {
    let p = memo.get(file);
    if (!p) {
      p = (async () => {
        const { execa } = await import('execa');
        const r = await execa(ffprobe, ['-v', 'error', '-show_entries', FFPROBE_ENTRIES, '-of', 'json', file], { reject: false, stdin: 'ignore' });
        if ((r as { code?: string }).code === 'ENOENT') throw new Error(`${ffprobe} was not found (install ffmpeg or set FFPROBE_BIN)`);
        // ffprobe stopped by a signal (a scheduler's cancel reaches every process of the job): not the file's fault
        // (issue 43); the caller keeps the video to do and drains the run.
        if (stoppedFromOutside(r)) throw childStopped(`ffprobe on ${file}`, r);
        // A file ffprobe cannot read has no stream the validator accepts: the video fails with that rule.
        if (r.failed) return { video: null, audio: null, videoDurationS: null, audioDurationS: null };
        return clipFactsFromProbe(parseBoundedJson(r.stdout));
      })();
      memo.set(file, p);
    }
    return p;
  };
}

/**
 * `probe` that starts no ffprobe once `stopped()` says the run is stopping (issue 43): a drain sends no new request,
 * so a video's validation under way (an ffprobe per clip and sidecar, one after another) is cut short instead of
 * probing the rest of its clips; ChildStopped, so the video stays to do, as when a cancel's signal stops its ffprobe.
 */
export function probeUntilStopped(probe: (file: string) => Promise<ClipMediaFacts>, stopped: () => boolean): (file: string) => Promise<ClipMediaFacts> {
  return (file) => (stopped() ? Promise.reject(new ChildStopped(`the run is stopping: ${file} was not probed`)) : probe(file));
}
