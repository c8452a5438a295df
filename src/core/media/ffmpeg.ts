// ffmpeg and ffprobe for the sample makers of every run type (AVTime's bench, the caption videos root): one bit-exact
// audio + video encoding (libx264 on one thread, AAC, no metadata), so the same inputs give the same bytes on every
// machine, an mp3 sidecar, and what ffprobe says of a file's streams. Binaries: FFMPEG_BIN / FFPROBE_BIN, else PATH.
import { z } from 'zod';
import { parseBoundedJson } from '../io/boundedJson';
import { childStopped, stoppedFromOutside } from './stoppedChild';

export const ffmpegBin = () => process.env.FFMPEG_BIN || 'ffmpeg';
export const ffprobeBin = () => process.env.FFPROBE_BIN || 'ffprobe';
const loadExeca = () => import('execa').then((m) => m.execa);

/** Runs ffmpeg; a failure says `what` failed and why (not installed, or its stderr). */
export async function runFfmpeg(args: readonly string[], what: string): Promise<void> {
  const execa = await loadExeca();
  const r = await execa(ffmpegBin(), args, { reject: false, stdin: 'ignore' });
  if (r.failed) {
    const why =
      (r as { code?: string }).code === 'ENOENT'
        ? `${ffmpegBin()} was not found; install ffmpeg (e.g. apt-get install -y ffmpeg) or set FFMPEG_BIN`
        : `exit ${r.exitCode ?? '?'}: ${String(r.stderr).trim() || r.shortMessage}`;
    throw new Error(`ffmpeg failed to ${what}: ${why}`);
  }
}

/** The start of every ffmpeg command line of the sample makers: errors only, never reading stdin, overwriting. */
export const FFMPEG_QUIET: readonly string[] = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'];

/** No metadata (no encoder version, no date) and bit-exact muxing: with the streams' flags below, the same inputs
 * give the same bytes on every machine. */
export const BITEXACT_MUX: readonly string[] = ['-map_metadata', '-1', '-fflags', '+bitexact'];
export const BITEXACT_VIDEO: readonly string[] = ['-flags:v', '+bitexact'];
export const BITEXACT_AUDIO: readonly string[] = ['-flags:a', '+bitexact'];

/** H.264 4:2:0 on one x264 thread: with frame threads the bytes would depend on the core count. */
export function x264OneThread(crf: number): string[] {
  return ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', String(crf), '-threads', '1', '-pix_fmt', 'yuv420p'];
}

/** Mono audio at 32 kb/s. */
const MONO_32K = ['-b:a', '32k', '-ac', '1'];

/** The bit-exact output options: H.264 (one thread, a keyframe every `gop` frames) and mono AAC at 32k. */
export function bitexactAvOutput(gop: number): string[] {
  return [
    ...x264OneThread(30),
    '-g',
    String(gop),
    '-c:a',
    'aac',
    ...MONO_32K,
    ...BITEXACT_MUX,
    ...BITEXACT_VIDEO,
    ...BITEXACT_AUDIO,
    '-movflags',
    '+faststart',
  ];
}

export interface LavfiAv {
  width: number;
  height: number;
  fps: number;
  audioRate: number;
  /** Seconds, as ffmpeg reads them ("6.000"). */
  duration: string;
  /** A filter chain drawn over a black frame (drawbox …). */
  videoFilter: string;
  /** An aevalsrc expression of t. */
  audioExpression: string;
}

/** A part of the encoded video written as its own files too: the clip (video + audio) and its mp3 sidecar. */
export interface AvCut {
  startS: number;
  durationS: number;
  clip: string;
  sidecar: string;
}

/** The mp3 sidecar's output options (mono, 32k, no metadata, no Xing header: the same bytes every time). */
const MP3_OUTPUT = ['-vn', '-c:a', 'libmp3lame', ...MONO_32K, ...BITEXACT_MUX, ...BITEXACT_AUDIO, '-write_xing', '0'];

/**
 * Encodes a video with audio from lavfi sources: a black frame under `videoFilter`, and `audioExpression`; each cut
 * is written in the same run (output seeking: the same frames and samples, one ffmpeg process per video).
 */
export async function encodeLavfiAv(spec: LavfiAv, file: string, what: string, cuts: readonly AvCut[] = []): Promise<void> {
  const args = [
    ...FFMPEG_QUIET,
    '-f',
    'lavfi',
    '-i',
    `color=c=black:s=${spec.width}x${spec.height}:r=${spec.fps}:d=${spec.duration}`,
    '-f',
    'lavfi',
    '-i',
    `aevalsrc='${spec.audioExpression}':s=${spec.audioRate}:d=${spec.duration}`,
    '-vf',
    spec.videoFilter,
    ...bitexactAvOutput(spec.fps),
    file,
  ];
  for (const c of cuts) {
    const span = ['-ss', c.startS.toFixed(3), '-t', c.durationS.toFixed(3)];
    args.push(...span, '-vf', spec.videoFilter, ...bitexactAvOutput(spec.fps), c.clip, ...span, ...MP3_OUTPUT, c.sidecar);
  }
  await runFfmpeg(args, what);
}

const ProbeJson = z.object({
  streams: z.array(z.object({ codec_type: z.string(), duration: z.string().optional() }).passthrough()),
  format: z.object({ duration: z.string() }).passthrough(),
});

export interface ProbedAv {
  /** The container's duration, in ms. */
  durationMs: number;
  hasVideo: boolean;
  hasAudio: boolean;
  /** Each stream's own duration in seconds (null: no such stream, or ffprobe gives none). */
  videoDurationS: number | null;
  audioDurationS: number | null;
}

/** What ffprobe reads of a file: the container's duration (ms), the stream kinds and their durations. */
export async function probeAv(file: string): Promise<ProbedAv> {
  const execa = await loadExeca();
  const entries = 'stream=codec_type,duration:format=duration';
  const r = await execa(ffprobeBin(), ['-v', 'error', '-show_entries', entries, '-of', 'json', file], { reject: false });
  if (stoppedFromOutside(r)) throw childStopped(`ffprobe on ${file}`, r);
  if (r.failed) {
    const why =
      (r as { code?: string }).code === 'ENOENT'
        ? `${ffprobeBin()} was not found; install ffmpeg or set FFPROBE_BIN`
        : String(r.stderr).trim() || r.shortMessage;
    throw new Error(`ffprobe could not read ${file}: ${why}`);
  }
  const j = ProbeJson.parse(parseBoundedJson(r.stdout));
  const container = Number(j.format.duration);
  const streamS = (kind: string) => {
    const s = j.streams.find((x) => x.codec_type === kind);
    if (!s) return null;
    const d = Number(s.duration);
    return Number.isFinite(d) ? d : container;
  };
  return {
    durationMs: Math.round(container * 1000),
    hasVideo: j.streams.some((x) => x.codec_type === 'video'),
    hasAudio: j.streams.some((x) => x.codec_type === 'audio'),
    videoDurationS: streamS('video'),
    audioDurationS: streamS('audio'),
  };
}
