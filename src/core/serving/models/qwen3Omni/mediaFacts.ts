// The facts of a target video that the reference's preprocessing depends on, read with ffprobe: frame size,
// frame count and rate (what decord's len(vr) / get_avg_fps give qwen_omni_utils), and the audio track's
// sample count and rate (what librosa.load decodes before resampling to 16 kHz).
import { z } from 'zod';
import { parseBoundedJson } from '../../../io/boundedJson';

export interface MediaFacts {
  width: number;
  height: number;
  totalFrames: number;
  fps: number;
  /** null: the file has no audio stream. */
  audio: { sampleRate: number; samples: number } | null;
}

/** ffprobe's JSON for FFPROBE_ENTRIES: what the caption run's probe reads too (core/clips/clipProbe.ts). */
const Stream = z
  .object({
    codec_type: z.string(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    nb_frames: z.string().optional(),
    avg_frame_rate: z.string().optional(),
    r_frame_rate: z.string().optional(),
    duration: z.string().optional(),
    duration_ts: z.number().optional(),
    time_base: z.string().optional(),
    sample_rate: z.string().optional(),
  })
  .passthrough();
export const ProbeJson = z.object({ streams: z.array(Stream), format: z.object({ duration: z.string().optional() }).passthrough() });

/** An ffprobe rate ('30000/1001') as a number; NaN when it is not a positive ratio. */
export const ratio = (s: string | undefined) => {
  const [a, b] = (s ?? '').split('/').map(Number);
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 && a > 0 ? a / b : NaN;
};

/** Pure: ffprobe's JSON (`-show_entries stream=…:format=duration -of json`) → the facts, or what is missing. */
export function mediaFactsFromProbe(json: unknown, file: string): MediaFacts {
  const j = ProbeJson.parse(json);
  const v = j.streams.find((s) => s.codec_type === 'video');
  if (!v || !v.width || !v.height) throw new Error(`${file}: no video stream with a frame size (ffprobe)`);
  const fps = Number.isFinite(ratio(v.avg_frame_rate)) ? ratio(v.avg_frame_rate) : ratio(v.r_frame_rate);
  const duration = Number(v.duration ?? j.format.duration);
  const counted = Number(v.nb_frames);
  const totalFrames = Number.isInteger(counted) && counted > 0 ? counted : Math.round(duration * fps);
  if (!Number.isFinite(fps) || !(totalFrames > 0)) throw new Error(`${file}: ffprobe gives no frame rate or frame count for the video stream`);
  const a = j.streams.find((s) => s.codec_type === 'audio');
  let audio: MediaFacts['audio'] = null;
  if (a) {
    const sampleRate = Number(a.sample_rate);
    const exact = a.time_base === `1/${sampleRate}` && Number.isInteger(a.duration_ts) ? a.duration_ts! : NaN;
    const samples = Number.isFinite(exact) ? exact : Math.round(Number(a.duration ?? j.format.duration) * sampleRate);
    if (!(sampleRate > 0) || !(samples > 0)) throw new Error(`${file}: ffprobe gives no sample rate or length for the audio stream`);
    audio = { sampleRate, samples };
  }
  return { width: v.width, height: v.height, totalFrames, fps, audio };
}

export const FFPROBE_ENTRIES =
  'stream=codec_type,width,height,nb_frames,avg_frame_rate,r_frame_rate,duration,duration_ts,time_base,sample_rate:format=duration';

export async function probeMedia(file: string, ffprobe = process.env.FFPROBE_BIN || 'ffprobe'): Promise<MediaFacts> {
  const { execa } = await import('execa');
  const r = await execa(ffprobe, ['-v', 'error', '-show_entries', FFPROBE_ENTRIES, '-of', 'json', file], { reject: false });
  if (r.failed) {
    if ((r as { code?: string }).code === 'ENOENT') throw new Error(`${ffprobe} not found (install ffmpeg or set FFPROBE_BIN)`);
    throw new Error(`${file}: ffprobe failed: ${String(r.stderr).trim().split('\n')[0]}`);
  }
  return mediaFactsFromProbe(parseBoundedJson(r.stdout), file);
}
